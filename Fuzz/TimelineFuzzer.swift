// libFuzzer harness: timeline and placeholder validation (`Timeline.decode`,
// `Placeholder.decode`), the parsers every provider's input goes through, and the
// presentation of what they accept: layout roles, actions and their policies in every
// lock state, written as a host receives them.
import StrictJSON
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
        let placeholder = try? Placeholder.decode(from: bytes)
        let widget = try! WidgetID("fuzz.provider/kind")
        for decision in PresentationDecision.allCases {
            for state in [DeviceState.beforeFirstUnlock, .locked, .unlocked] {
                let presentation = PresentationRules.present(
                    decision, widget: widget, timeline: timeline, placeholder: placeholder, reloadDue: timeline.reloadDue,
                    surface: .lockScreen, now: now, state: state, actionPending: state == .locked)
                var writer = JSONWriter()
                presentation.write(to: &writer)
            }
        }
    }
    _ = try? Placeholder.decode(from: bytes)
    return 0
}
