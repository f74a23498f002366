// libFuzzer harness: timeline and placeholder validation (`Timeline.decode`,
// `Placeholder.decode`), the parsers every provider's input goes through, and the
// presentation of what they accept: layout roles, actions and their policies in every
// lock state, written as a host receives them. The one-pass transcription of a
// request's entries (`CanonicalEntries`) is checked against the general way too.
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
    bytes.withUnsafeBytes { buffer in
        guard (try? JSONReader.validate(buffer)) != nil else { return }
        var reader = JSONReader(buffer)
        try? reader.readObject { (reader, key) throws(JSONReadError) in
            if key == "entries" { checkTranscription(from: reader) }
            try reader.skipValue()
        }
    }
    return 0
}

/// Whatever `CanonicalEntries` accepts of the entries `reader` stands on, the general
/// way must accept too, and write byte for byte, its reader stopping at the same place.
private func checkTranscription(from reader: JSONReader) {
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 1)
    defer { scratch.deallocate() }
    var fast = reader
    var writer = JSONWriter(into: scratch)
    guard (try? CanonicalEntries.transcribe(from: &fast, limits: .default, to: &writer)) != nil else { return }
    CanonicalEntries.finish(policy: .atEnd, to: &writer)
    guard writer.fits else { return }
    var general = reader
    guard let entries = try? Entry.readArray(from: &general) else { fatalError("transcribed entries the general way refuses") }
    let timeline = Timeline(entries: entries, policy: .atEnd)
    guard (try? TimelineValidator.validate(timeline)) != nil else { fatalError("transcribed entries the validator refuses") }
    precondition(general.offset == fast.offset, "the readers stop apart")
    let expected = UnsafeMutableRawBufferPointer.allocate(byteCount: timeline.canonicalJSONCount, alignment: 1)
    defer { expected.deallocate() }
    var canonical = JSONWriter(into: expected)
    timeline.write(to: &canonical)
    precondition(UnsafeRawBufferPointer(expected).elementsEqual(UnsafeRawBufferPointer(rebasing: scratch[0..<writer.count])),
        "the transcript differs from the canonical body")
}
