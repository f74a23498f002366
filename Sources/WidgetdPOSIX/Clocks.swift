import CSystemShims
import FoundationEssentials

/// `CLOCK_MONOTONIC`: what durations run on (class A's grace, timeouts, backoffs, the
/// watchdog). Setting the wall clock does not move it; it stops while the machine sleeps.
package enum MonotonicClock {}

/// `CLOCK_BOOTTIME`: the monotonic clock plus the time asleep, what
/// `RequirePasscodeAfterSec=` runs on (a locked phone in a pocket sleeps most of the time).
package enum BootTimeClock {}

/// An instant on a clock that nobody sets (``MonotonicClock`` or ``BootTimeClock``), in
/// seconds since an origin of that clock. Instants of different clocks, and dates, do not
/// mix: a duration measured on one is compared only with instants of the same clock.
package struct ClockInstant<Clock>: Comparable, Hashable, Sendable {
    /// Seconds since the clock's origin (boot, for the kernel's clocks).
    package let seconds: Double

    /// The instant `seconds` after the clock's origin.
    package init(seconds: Double) { self.seconds = seconds }

    /// The instant `interval` seconds later (earlier if negative).
    package func addingTimeInterval(_ interval: Double) -> Self { Self(seconds: seconds + interval) }

    /// Seconds from `other` to this instant.
    package func timeIntervalSince(_ other: Self) -> Double { seconds - other.seconds }

    package static func < (a: Self, b: Self) -> Bool { a.seconds < b.seconds }
}

/// An instant on `CLOCK_MONOTONIC`.
package typealias MonotonicInstant = ClockInstant<MonotonicClock>
/// An instant on `CLOCK_BOOTTIME`.
package typealias BootInstant = ClockInstant<BootTimeClock>

/// One reading of the three clocks the daemon keeps time by (DESIGN §8): the wall clock
/// for dates (entries, reloads, what a host is shown), the monotonic clock for durations,
/// the boot-time clock for `RequirePasscodeAfterSec=`. Tests build readings by hand to
/// step one clock alone.
package struct ClockReading: Hashable, Sendable {
    /// `CLOCK_REALTIME`: may be set, forward or back, at any moment (NTP, the user).
    package var wall: Date
    /// `CLOCK_MONOTONIC`.
    package var monotonic: MonotonicInstant
    /// `CLOCK_BOOTTIME`.
    package var boottime: BootInstant

    /// A reading made of its parts.
    package init(wall: Date, monotonic: MonotonicInstant, boottime: BootInstant) {
        self.wall = wall
        self.monotonic = monotonic
        self.boottime = boottime
    }

    /// The kernel's clocks now.
    package static func system() -> ClockReading {
        ClockReading(
            wall: Date(timeIntervalSince1970: shim_clock_seconds(Int32(shim_clock_wall.rawValue))),
            monotonic: MonotonicInstant(seconds: shim_clock_seconds(Int32(shim_clock_monotonic.rawValue))),
            boottime: BootInstant(seconds: shim_clock_seconds(Int32(shim_clock_boottime.rawValue))))
    }

    /// The reading `interval` seconds of running time later: every clock moves.
    package func advanced(by interval: Double) -> ClockReading {
        ClockReading(
            wall: wall.addingTimeInterval(interval), monotonic: monotonic.addingTimeInterval(interval),
            boottime: boottime.addingTimeInterval(interval))
    }
}

/// When a timer is due, on the clock it runs on.
package enum TimerDeadline: Hashable, Sendable {
    /// A date: due when the wall clock reaches it, however the clock got there.
    case wall(Date)
    /// Due when the monotonic clock reaches it (a duration's end).
    case monotonic(MonotonicInstant)
    /// Due when the boot-time clock reaches it (a duration that counts sleep).
    case boottime(BootInstant)

    /// Whether it is due at `reading`.
    package func isDue(at reading: ClockReading) -> Bool {
        switch self {
        case .wall(let date): date <= reading.wall
        case .monotonic(let instant): instant <= reading.monotonic
        case .boottime(let instant): instant <= reading.boottime
        }
    }
}
