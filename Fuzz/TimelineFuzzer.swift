// libFuzzer harness: timeline and placeholder validation (`Timeline.decode`,
// `Placeholder.decode`), the parsers every provider's input goes through.
import WidgetModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let timeline = try? Timeline.decode(from: bytes) {
        // A valid timeline must answer every question about itself without trapping.
        let now = timeline.entries.first?.date ?? .distantPast
        _ = timeline.currentEntry(at: now)
        _ = timeline.validUntil(at: now)
        _ = timeline.isStale(at: now)
        _ = timeline.nextChange(after: now)
    }
    _ = try? Placeholder.decode(from: bytes)
    return 0
}
