import Foundation
import Glibc
import StrictJSON
import Varlink
import WidgetModel

/// `widgetd-bench --only decode`: the CPU one `PutTimeline` costs the daemon before its
/// commit, without sockets, storage or crypto — the envelope scan, decoding the
/// parameters, validation and the canonical body — as µs per message.
///
/// It follows `TimelineService.putTimeline` step by step (the daemon's own types are
/// internal to it), on the same 3 KiB message the write benchmark sends, so that a
/// profile (`perf record`) of this loop is a profile of the daemon's decode path.
package enum DecodeBenchmark {
    /// The figures of one run.
    package struct Result: Sendable {
        /// Messages per timed pass.
        package let messages: Int
        /// Message size in bytes.
        package let bytes: Int
        /// µs per message: the whole path, and each step alone.
        package let total: Double, envelope: Double, decode: Double, validate: Double, encode: Double
        /// µs per message for the daemon's usual path instead: the entries transcribed
        /// straight into the canonical body in one pass (`CanonicalEntries`), for the
        /// plain entries and for a glance widget's (layout roles, actions).
        package let transcribe: Double, transcribeGlance: Double
        /// µs per read of the stored body a presentation makes (the written timeline's
        /// canonical bytes, at an instant inside it): the whole decode with its excerpt
        /// taken after, and the excerpt alone (`TimelineExcerpt.decode`).
        package let readWhole: Double, readExcerpt: Double
    }

    /// Runs `messages` messages through the path (best of `passes` passes for each figure).
    package static func run(messages: Int = 20_000, passes: Int = 5, timelineBytes: Int = 3 * 1024) throws -> Result {
        var message = VarlinkRequest.putTimeline("bench.provider/decode", bytes: timelineBytes)
        message.removeLast()  // the NUL the framer strips
        let call = try scanEnvelope(message)
        let decoded = try decodeParameters(call)
        var body = [UInt8](repeating: 0, count: 64 * 1024)

        func best(_ body: () throws -> Void) rethrows -> Double {
            var best = Double.infinity
            for _ in 0..<passes {
                let start = now()
                for _ in 0..<messages { try body() }
                best = min(best, (now() - start) * 1e6 / Double(messages))
            }
            return best
        }
        let total = try best {
            let call = try scanEnvelope(message)
            let parts = try decodeParameters(call)
            try Self.validate(parts)
            Self.encode(parts, into: &body)
        }
        let envelope = try best { _ = try scanEnvelope(message) }
        let decode = try best { _ = try decodeParameters(call) }
        let validating = try best { try Self.validate(decoded) }
        let encoding = best { Self.encode(decoded, into: &body) }
        var glance = VarlinkRequest.putTimeline("bench.provider/decode", bytes: timelineBytes, shape: .glance)
        glance.removeLast()
        let transcribing = try transcribeEntries(of: message, into: &body, best: best)
        let transcribingGlance = try transcribeEntries(of: glance, into: &body, best: best)
        let stored = Timeline(entries: decoded.entries, policy: decoded.policy ?? .atEnd)
        var canonical = [UInt8](repeating: 0, count: stored.canonicalJSONCount)
        canonical.withUnsafeMutableBytes { buffer in
            var writer = JSONWriter(into: buffer)
            stored.write(to: &writer)
        }
        let instant = stored.entries[stored.entries.count / 2].date
        let (whole, excerpt) = try canonical.withUnsafeBytes { bytes in
            (
                try best { _ = TimelineExcerpt(try Timeline.decode(from: bytes), at: instant) },
                try best { _ = try TimelineExcerpt.decode(from: bytes, at: instant) }
            )
        }
        return Result(
            messages: messages, bytes: message.count, total: total, envelope: envelope, decode: decode,
            validate: validating, encode: encoding, transcribe: transcribing,
            transcribeGlance: transcribingGlance, readWhole: whole, readExcerpt: excerpt)
    }

    /// The best µs per message of transcribing `message`'s entries (found once) into
    /// `body`, as `ProviderParameters` does while the message is framed.
    private static func transcribeEntries(
        of message: [UInt8], into body: inout [UInt8], best: (() throws -> Void) throws -> Double
    ) throws -> Double {
        try message.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            var entries: JSONReader?
            try reader.readObject { (reader, key) throws(JSONReadError) in
                if key == "parameters" {
                    try reader.readObject { (reader, key) throws(JSONReadError) in
                        if key == "entries" { entries = reader }
                        try reader.skipValue()
                    }
                } else {
                    try reader.skipValue()
                }
            }
            guard let entries else { throw BenchError("PutTimeline without entries") }
            return try body.withUnsafeMutableBytes { buffer in
                try best {
                    var reader = entries
                    var writer = JSONWriter(into: buffer)
                    _ = try CanonicalEntries.transcribe(from: &reader, limits: .default, to: &writer)
                    CanonicalEntries.finish(policy: .atEnd, to: &writer)
                    guard writer.fits else { throw BenchError("the transcript does not fit") }
                }
            }
        }
    }

    /// The envelope scanned as the event loop does: the parameters located, not checked.
    static func scanEnvelope(_ message: [UInt8]) throws -> VarlinkCall {
        try message.withUnsafeBytes { try VarlinkCall(decodingDeferringParameters: $0) }
    }

    /// The parts of `PutTimeline` this benchmark decodes.
    struct Parts: Sendable {
        var widget = "", family: String?
        var entries: [Entry] = []
        var policy: ReloadPolicy?
        var placeholder: Placeholder?
    }

    /// Walks the parameters once, checking them as JSON text and decoding each member as
    /// it comes, as `ProviderParameters` does when a message is framed (`call` is a copy
    /// whose parameters are not checked yet).
    static func decodeParameters(_ call: VarlinkCall) throws -> Parts {
        var call = call
        try call.readParameters { (reader) throws(JSONReadError) -> Parts in
            var parts = Parts()
            try reader?.readObject { (reader, key) throws(JSONReadError) in
                switch key {
                case "widget": parts.widget = try reader.readString()
                case "family": parts.family = try reader.readString()
                case "entries": parts.entries = try Entry.readArray(from: &reader)
                case "policy": parts.policy = try ReloadPolicy.read(from: &reader)
                case "placeholder": parts.placeholder = try Placeholder.read(from: &reader)
                default: try reader.skipValue()
                }
            }
            return parts
        }
        guard let parts = call.walkedParameters(as: Parts.self) else { throw BenchError("PutTimeline without parameters") }
        return parts
    }

    static func validate(_ parts: Parts) throws {
        try TimelineValidator.validate(Timeline(entries: parts.entries, policy: parts.policy ?? .atEnd))
        if let placeholder = parts.placeholder { try TimelineValidator.validate(placeholder: placeholder) }
    }

    /// Writes the canonical body the way `CanonicalBodyEncoder` does (one walk into a
    /// 16 KiB scratch, then copied into a buffer of exactly its size and the scratch
    /// zeroed), and the placeholder's canonical bytes.
    static func encode(_ parts: Parts, into body: inout [UInt8]) {
        let timeline = Timeline(entries: parts.entries, policy: parts.policy ?? .atEnd)
        body.withUnsafeMutableBytes { buffer in
            let scratch = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(16 * 1024)])
            var writer = JSONWriter(into: scratch)
            timeline.write(to: &writer)
            precondition(writer.fits)
            let exact = UnsafeMutableRawBufferPointer(rebasing: buffer[(16 * 1024)..<(16 * 1024 + writer.count)])
            exact.copyMemory(from: UnsafeRawBufferPointer(rebasing: scratch[0..<writer.count]))
            explicit_bzero(scratch.baseAddress!, writer.count)
        }
        _ = parts.placeholder?.canonicalJSON
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The result as the lines the bench prints.
    package static func report(_ result: Result) -> String {
        func f(_ value: Double) -> String { String(format: "%.2f", value) }
        return """
            decode: PutTimeline of \(result.bytes) bytes, \(result.messages) messages per pass, best pass
              total (envelope + parameters + validate + canonical body): \(f(result.total)) µs/message
              envelope scan (VarlinkCall, parameters skipped): \(f(result.envelope)) µs
              parameters (one checking walk: Entry/Placeholder decode): \(f(result.decode)) µs
              validate (TimelineValidator): \(f(result.validate)) µs
              canonical body (one walk + copy, placeholder): \(f(result.encode)) µs
            the daemon's usual path, the entries transcribed in one pass (CanonicalEntries):
              plain entries: \(f(result.transcribe)) µs; a glance widget's (roles, actions): \(f(result.transcribeGlance)) µs
            a presentation's read of the stored body (its canonical bytes, decrypted):
              whole decode, then its excerpt: \(f(result.readWhole)) µs; the excerpt alone (TimelineExcerpt): \(f(result.readExcerpt)) µs

            """
    }
}
