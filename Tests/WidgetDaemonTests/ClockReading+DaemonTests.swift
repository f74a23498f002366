import Foundation
import WidgetdPOSIX

extension ClockReading {
    /// Every clock at `date`'s seconds: a reading for the tests in which the clocks
    /// move together (no step of the wall clock, no sleep).
    static func at(_ date: Date) -> ClockReading {
        ClockReading(
            wall: date, monotonic: MonotonicInstant(seconds: date.timeIntervalSinceReferenceDate),
            boottime: BootInstant(seconds: date.timeIntervalSinceReferenceDate))
    }
}
