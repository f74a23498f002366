// libFuzzer harness: the strict JSON reader against JSONDecoder, differentially.
//
// For any input: whatever the strict path (`Timeline.decode`) accepts, the Codable
// path (`JSONDecoder` and the validator) must accept too, to an equal timeline (the
// strict reader rejects at least what JSONDecoder rejects; JSONDecoder hands field
// values' numbers over as Double, so they are compared by value, while the strict
// reader keeps their text); and an accepted timeline's
// canonical bytes must read back to the same value through both paths. The Varlink
// envelope scan must never trap and must find parameters inside the message, and
// reading PutTimeline's parameters from them must never trap.
import Foundation
import StrictJSON
import Varlink
@testable import WidgetDaemon
import WidgetModel
import WidgetdWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStrictJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let call = try? VarlinkCall(decoding: bytes) {
        call.withParameterBytes { parameters in
            guard let parameters else { return }
            precondition((try? JSONReader.validate(parameters)) != nil, "parameters are not JSON")
        }
        // Reading PutTimeline's parameters from a checked call must not trap.
        _ = try? PutTimelineParameters.read(from: call)
    }
    guard let strict = try? Timeline.decode(from: bytes) else { return 0 }
    let codable: Timeline
    do {
        codable = try JSONDecoder().decode(Timeline.self, from: Data(bytes))
        try TimelineValidator.validate(codable)
    } catch {
        preconditionFailure("the strict reader accepted what the Codable path rejects: \(error)")
    }
    precondition(asDoubles(strict) == codable, "the two paths read different timelines")
    var counter = JSONWriter()
    strict.write(to: &counter)
    var canonical = [UInt8](repeating: 0, count: counter.count)
    canonical.withUnsafeMutableBytes { buffer in
        var writer = JSONWriter(into: buffer)
        strict.write(to: &writer)
    }
    precondition((try? Timeline.decode(from: canonical)) == strict, "canonical bytes do not read back")
    precondition((try? JSONDecoder().decode(Timeline.self, from: Data(canonical))) == asDoubles(strict), "JSONDecoder reads the canonical bytes differently")
    return 0
}

/// The timeline with every field value's number as the nearest Double's text: what
/// the Codable path, which sees numbers only as Double, reads.
private func asDoubles(_ timeline: Timeline) -> Timeline {
    func convert(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number): .number(JSONNumber(number.doubleValue))
        case .array(let items): .array(items.map(convert))
        case .object(let members): .object(members.mapValues(convert))
        case .null, .bool, .string: value
        }
    }
    return Timeline(entries: timeline.entries.map { entry in
        var entry = entry
        entry.fields = entry.fields.mapValues { Field(value: convert($0.value), privacy: $0.privacy) }
        return entry
    }, policy: timeline.policy)
}
