import Foundation
import Glibc
import StrictJSON
import Varlink
import WidgetModel

/// `widgetd-bench --only encode`: the CPU one presentation reply costs the daemon to
/// encode, the two ways it can: through `Encodable` into `JSONTreeEncoder`'s tree, then
/// wrapped into the Varlink reply (`ExactReply.encode(parameters:)`), and written by hand
/// straight into the reply (`ExactReply.encode(presentation:)`), as µs per reply.
///
/// The presentation is what a host of the fan-out rows is shown: the current entry of
/// the timeline those rows write (`VarlinkRequest.putTimeline`), as content and redacted.
/// The two ways are timed in alternating passes, the best pass of each kept, and their
/// bytes checked equal first.
package enum EncodeBenchmark {
    /// The figures of one presentation.
    package struct Row: Sendable {
        /// The presentation's mode.
        package let mode: PresentationMode
        /// The reply's size in bytes, NUL included.
        package let bytes: Int
        /// µs per reply through the tree, and written by hand.
        package let tree: Double, written: Double
    }

    /// The reply's parameters as the daemon's `PresentationReply` encodes.
    private struct Reply: Encodable {
        let presentation: Presentation
    }

    /// Runs `replies` replies per pass for each mode (best of `passes` passes each way).
    package static func run(replies: Int = 20_000, passes: Int = 7, timelineBytes: Int = 3 * 1024) throws -> [Row] {
        var message = VarlinkRequest.putTimeline("bench.provider/encode", bytes: timelineBytes)
        message.removeLast()  // the NUL the framer strips
        let parts = try DecodeBenchmark.decodeParameters(try VarlinkCall(decoding: message))
        let timeline = Timeline(entries: parts.entries, policy: parts.policy ?? .atEnd)
        let widget = try WidgetID(parts.widget)
        return try [PresentationDecision.content, .redacted].map { decision in
            let presentation = PresentationRules.present(
                decision, widget: widget, timeline: timeline, placeholder: parts.placeholder, reloadDue: nil,
                surface: .lockScreen, now: Date(), state: .locked)
            let viaTree = { try treeReply(presentation) }
            let byHand = { writtenReply(presentation) }
            let sample = try viaTree()
            guard sample == byHand() else { throw BenchError("encode: the written reply differs from the tree's") }
            var tree = Double.infinity, written = Double.infinity
            for _ in 0..<passes {
                tree = min(tree, try time(replies, viaTree))
                written = min(written, time(replies, byHand))
            }
            return Row(mode: presentation.mode, bytes: sample.count, tree: tree, written: written)
        }
    }

    /// `ExactReply.encode(parameters:continues:)` of the reply, as the daemon does it.
    static func treeReply(_ presentation: Presentation) throws -> [UInt8] {
        var body = try JSONTreeEncoder.bytes(Reply(presentation: presentation))
        defer { SecretWipe.zero(&body) }
        return VarlinkReply.encode(encodedParameters: body, continues: true)
    }

    /// `ExactReply.encode(presentation:continues:)`, as the daemon does it.
    static func writtenReply(_ presentation: Presentation) -> [UInt8] {
        VarlinkReply.encode(continues: true) { writer in
            writer.raw(#"{"presentation":"#)
            presentation.write(to: &writer)
            writer.byte(UInt8(ascii: "}"))
        }
    }

    /// µs per call of `encode`, each reply zeroed as the daemon zeroes it once sent.
    private static func time(_ count: Int, _ encode: () throws -> [UInt8]) rethrows -> Double {
        let start = now()
        for _ in 0..<count {
            var reply = try encode()
            SecretWipe.zero(&reply)
        }
        return (now() - start) * 1e6 / Double(count)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The result as the lines the bench prints.
    package static func report(_ rows: [Row]) -> String {
        func f(_ value: Double) -> String { String(format: "%.2f", value) }
        var lines = ["encode: one presentation reply (Watch, continues), best pass, µs per reply"]
        for row in rows {
            lines.append(
                "  \(row.mode) (\(row.bytes) bytes): tree \(f(row.tree)) µs, written \(f(row.written)) µs, "
                    + "\(String(format: "%.1f", row.tree / row.written))× less")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
