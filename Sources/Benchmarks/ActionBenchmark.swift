import Foundation
import Glibc

/// An `alwaysAllowed` action from a host to its provider (DESIGN §13), beside a
/// `GetPresentation` round trip of the same daemon, interleaved in the same run.
///
/// One sample of the action is the time from the host sending `PerformAction` to the
/// provider's `WatchActions` stream holding the delivery (and the host its `delivered`
/// reply): what a person's tap costs before the provider can act. The provider answers
/// each action with a new timeline, outside the timed span, as a real provider does
/// (an unanswered provider stops receiving after 64). Hosts take turns over several
/// connections: one connection may perform 16 actions a second, the flood bound.
package enum ActionBenchmark {
    /// The figures of one run, microseconds.
    package struct Result: Sendable {
        package let actions: LatencySummary
        package let presentations: LatencySummary
        /// `GetPresentation` of the acted widget right after its provider's answer: not
        /// cached, so presented anew, as `PerformAction` presents the widget it checks.
        package let uncachedPresentations: LatencySummary
        /// The same reads while another host floods `PerformAction` (pipelined, most
        /// refused `TryAgainLater`): what a flooding host costs everyone else.
        package let presentationsDuringFlood: LatencySummary
        /// The flood's replies, by outcome or error name.
        package let floodReplies: [String: Int]
    }

    /// Percentiles of a sample, microseconds.
    package struct LatencySummary: Sendable {
        package let count: Int
        package let p50: Double
        package let p99: Double

        init(_ samples: [Double]) {
            let sorted = samples.sorted()
            count = sorted.count
            p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        }
    }

    /// Measures `rounds` rounds of `perRound` actions and as many presentations against a
    /// fresh daemon of `binary`; rounds are a second apart so that no host connection
    /// passes the flood bound.
    package static func run(binary: String, rounds: Int = 5, perRound: Int = 120) throws -> Result {
        let root = NSTemporaryDirectory() + "widgetd-bench-actions-\(getpid())"
        try? FileManager.default.removeItem(atPath: root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let daemon = try BenchDaemon(root: root, binary: binary)
        try daemon.start()
        defer { daemon.stop() }

        let acted = "com.example.clock/tap"
        let read = "com.example.weather/forecast"
        let setup = try daemon.client()
        try VarlinkRequest.check(setup, VarlinkRequest.putTimeline(read, bytes: 3 * 1024), "PutTimeline")
        let answer = timeline(acted)
        try VarlinkRequest.check(setup, answer, "PutTimeline")

        // The provider's stream, on a connection the daemon has accepted and polled.
        let watcher = try daemon.client()
        try VarlinkRequest.call(watcher, "io.widgetd.Device.GetStatus")
        watcher.dropLastReply()
        try watcher.send(streamRequest("io.widgetd.Provider.WatchActions", ["provider": "com.example.clock"]))
        // The daemon has read the watch once a later round trip of another connection ends.
        try VarlinkRequest.call(setup, "io.widgetd.Device.GetStatus")

        let hosts = try (0..<8).map { _ in try daemon.client() }
        let perform = VarlinkRequest.encode(
            "io.widgetd.Host.PerformAction", ["widget": acted, "surface": "lockScreen", "action": "tap"])
        let present = VarlinkRequest.encode("io.widgetd.Host.GetPresentation", ["widget": read, "surface": "lockScreen"])
        let presentActed = VarlinkRequest.encode("io.widgetd.Host.GetPresentation", ["widget": acted, "surface": "lockScreen"])
        var actionSamples: [Double] = []
        var presentationSamples: [Double] = []
        var uncachedSamples: [Double] = []
        for round in 0..<rounds {
            if round > 0 { usleep(1_100_000) }
            for index in 0..<perRound {
                let host = hosts[index % hosts.count]
                var started = Clock.nanoseconds()
                try VarlinkRequest.check(host, present, "GetPresentation")
                presentationSamples.append(Double(Clock.nanoseconds() - started) / 1e3)

                started = Clock.nanoseconds()
                try host.send(perform)
                var scanned = 0
                while try watcher.receive(scanned: &scanned, blocking: true) == nil {}
                let delivered = Clock.nanoseconds()
                let delivery = watcher.lastReply
                watcher.dropLastReply()
                host.dropLastReply()
                scanned = 0
                while try host.receive(scanned: &scanned, blocking: true) == nil {}
                guard host.lastReply.starts(with: Array(#"{"parameters":{"outcome":"delivered"}"#.utf8)) else {
                    throw BenchError("PerformAction: \(String(decoding: host.lastReply.dropLast(), as: UTF8.self))")
                }
                guard String(decoding: delivery, as: UTF8.self).contains(#""action":"tap""#) else {
                    throw BenchError("WatchActions: unexpected \(String(decoding: delivery.dropLast(), as: UTF8.self))")
                }
                actionSamples.append(Double(delivered - started) / 1e3)
                // The provider answers, untimed: a new timeline ends the action's wait.
                try VarlinkRequest.check(setup, answer, "PutTimeline")
                // The acted widget's presentation, which that write took out of the cache:
                // a read that presents the widget anew, as PerformAction does.
                started = Clock.nanoseconds()
                try VarlinkRequest.check(host, presentActed, "GetPresentation")
                uncachedSamples.append(Double(Clock.nanoseconds() - started) / 1e3)
            }
        }
        // A host that floods: `flood` actions sent at once on one connection, from its
        // own thread, while a reader on another connection measures as above.
        // Used by the flooding thread alone once it starts.
        let flooder = Unshared(try daemon.client())
        let reader = hosts[0]
        let flood = perRound * 10
        let outcomes = FloodOutcomes()
        let thread = Thread {
            do {
                var burst: [UInt8] = []
                for _ in 0..<flood { burst += perform }
                let client = flooder.value
                try client.send(burst)
                for _ in 0..<flood {
                    var scanned = 0
                    while try client.receive(scanned: &scanned, blocking: true) == nil {}
                    let reply = String(decoding: client.lastReply.dropLast(), as: UTF8.self)
                    client.dropLastReply()
                    outcomes.count(reply.contains("TryAgainLater") ? "TryAgainLater" : reply.contains("delivered") ? "delivered" : "other")
                }
            } catch {
                outcomes.count("failed")
            }
            outcomes.finish()
        }
        thread.start()
        var duringFlood: [Double] = []
        while !outcomes.isFinished || duringFlood.count < perRound {
            let started = Clock.nanoseconds()
            try VarlinkRequest.check(reader, present, "GetPresentation")
            duringFlood.append(Double(Clock.nanoseconds() - started) / 1e3)
            if duringFlood.count >= perRound * 5 { break }
        }
        outcomes.wait()
        return Result(
            actions: LatencySummary(actionSamples), presentations: LatencySummary(presentationSamples),
            uncachedPresentations: LatencySummary(uncachedSamples), presentationsDuringFlood: LatencySummary(duringFlood), floodReplies: outcomes.counts)
    }

    /// A value handed to one other thread, which alone uses it from then on.
    private final class Unshared<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// The flooding thread's tally, read on the measuring thread once it is done.
    private final class FloodOutcomes: @unchecked Sendable {
        private let lock = NSCondition()
        private var tally: [String: Int] = [:]
        private var done = false

        func count(_ outcome: String) {
            lock.lock()
            tally[outcome, default: 0] += 1
            lock.unlock()
        }

        func finish() {
            lock.lock()
            done = true
            lock.broadcast()
            lock.unlock()
        }

        var isFinished: Bool {
            lock.lock()
            defer { lock.unlock() }
            return done
        }

        func wait() {
            lock.lock()
            while !done { lock.wait() }
            lock.unlock()
        }

        var counts: [String: Int] {
            lock.lock()
            defer { lock.unlock() }
            return tally
        }
    }

    /// The acted-on widget's timeline: one entry with an `alwaysAllowed` button.
    private static func timeline(_ widget: String) -> [UInt8] {
        VarlinkRequest.encode("io.widgetd.Provider.PutTimeline", [
            "widget": widget,
            "entries": [[
                "date": VarlinkRequest.date(Date().addingTimeInterval(-60)),
                "fields": ["t": ["value": "Tap", "role": "title"]],
                "actions": [["id": "tap", "title": "Tap", "kind": "button", "authentication": "alwaysAllowed"]],
            ]],
            "policy": ["kind": "never"],
        ])
    }

    /// A call with `more`.
    private static func streamRequest(_ method: String, _ parameters: [String: Any]) -> [UInt8] {
        let object: [String: Any] = ["method": method, "parameters": parameters, "more": true]
        return Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) + [0]
    }

    /// The figures as a Markdown table.
    package static func report(_ result: Result) -> String {
        let ratio = result.presentations.p50 > 0 ? result.actions.p50 / result.presentations.p50 : 0
        let ratio99 = result.presentations.p99 > 0 ? result.actions.p99 / result.presentations.p99 : 0
        return """
            | round trip | samples | p50 µs | p99 µs |
            |---|---:|---:|---:|
            | PerformAction (alwaysAllowed) to the provider's WatchActions | \(result.actions.count) | \(Int(result.actions.p50)) | \(Int(result.actions.p99)) |
            | GetPresentation (cached, 3 KiB timeline) | \(result.presentations.count) | \(Int(result.presentations.p50)) | \(Int(result.presentations.p99)) |
            | ratio (goal: at most 2) | | \(String(format: "%.2f", ratio)) | \(String(format: "%.2f", ratio99)) |
            | GetPresentation presented anew (the acted widget after its provider's answer) | \(result.uncachedPresentations.count) | \(Int(result.uncachedPresentations.p50)) | \(Int(result.uncachedPresentations.p99)) |
            | GetPresentation while another host floods PerformAction | \(result.presentationsDuringFlood.count) | \(Int(result.presentationsDuringFlood.p50)) | \(Int(result.presentationsDuringFlood.p99)) |

            The flood's replies: \(result.floodReplies.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")).

            """
    }
}
