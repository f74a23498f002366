import Foundation
import Glibc
import Testing

/// Issue 13, defect 2: a reply holding class-A content that its client does not read
/// must not outlive the lock and its grace period in the daemon's memory.
@Suite(.enabled(if: getuid() == 0, "reading another process's memory needs root"))
struct UnsentOutputEndToEndTests {
    /// A class-A timeline of about 800 KB, far more than a Unix socket's buffer takes.
    static func largeTimeline(_ widget: String, marker: String) -> [String: Any] {
        let value = String(repeating: marker + " ", count: 8000 / (marker.count + 1))
        let now = Date()
        let entries: [[String: Any]] = (0..<100).map { index in
            ["date": Fixtures.rfc3339(now.addingTimeInterval(Double(index) * 60)),
             "fields": ["balance": ["value": value, "privacy": "sensitive"]]]
        }
        return ["widget": widget, "family": "systemSmall", "entries": entries, "placeholder": Fixtures.placeholder]
    }

    @Test func unsentClassAOutputIsDroppedAndItsConnectionClosedWhenClassAIsPurged() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0.5"])
        try daemon.start()
        let pid = try #require(daemon.process?.processIdentifier)
        let tag = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
        let marker = "UNSENT\(tag)A"
        let widget = "com.example.health/large"
        let admin = try daemon.client()
        try admin.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try admin.ok("io.widgetd.Provider.PutTimeline", Self.largeTimeline(widget, marker: marker))

        // The provider asks for its timeline and does not read the reply.
        let reader = try daemon.client()
        try reader.send("io.widgetd.Provider.GetTimeline", ["widget": widget])
        var waiting = 0
        for _ in 0..<100 where waiting == 0 {
            usleep(20_000)
            waiting = try MemoryHygieneTests.search(pid: pid, for: [marker]).count
        }
        try #require(waiting > 0, "the reply never reached the daemon's output")

        try admin.ok("io.widgetd.Device.Lock")
        var purged = false
        for _ in 0..<300 where !purged {
            let classes = try admin.ok("io.widgetd.Device.GetStatus")["classes"] as? [[String: Any]] ?? []
            purged = classes.contains { $0["class"] as? String == "complete" && $0["keyAvailable"] as? Bool == false }
            if !purged { usleep(50_000) }
        }
        try #require(purged, "class A was not purged within 15 s")
        try admin.ok("io.widgetd.Device.GetStatus")

        let findings = try MemoryHygieneTests.search(pid: pid, for: [marker])
        #expect(findings.isEmpty, "\(findings.count) copies left, e.g.:\n\(findings.prefix(3).map(\.description).joined(separator: "\n"))")
        let line = daemon.log.split(separator: "\n").first { $0.contains("connection_dropped_protected_output") }
        #expect(line != nil, "no log line for the dropped output")
        #expect(line?.contains("complete") == true && line?.contains("peer.uid") == true)
        #expect(line?.contains(marker) == false)
        // The client gets at most what the socket held before the purge, then the end.
        var received = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        var closed = false
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(reader.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(reader.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += n; continue }
            closed = n == 0
            break
        }
        #expect(closed, "the daemon kept the connection open")
        #expect(received < 800_000, "the client read \(received) bytes: the whole reply")
    }

    /// Class B (DESIGN §3): an open timeline stays readable to its own provider after the
    /// lock, so its unsent reply stays too, until the timeline is closed.
    @Test func unsentClassBOutputOfAnOpenTimelineOutlivesTheLockUntilTheTimelineCloses() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0"])
        try daemon.start()
        let tag = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
        let marker = "UNSENT\(tag)B"
        let widget = "com.example.mail/large"
        let admin = try daemon.client()
        try admin.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try admin.ok("io.widgetd.Provider.PutTimeline", Self.largeTimeline(widget, marker: marker))
        let reader = try daemon.client()
        try reader.send("io.widgetd.Provider.GetTimeline", ["widget": widget])
        usleep(200_000)
        try admin.ok("io.widgetd.Device.Lock")
        let classes = try admin.ok("io.widgetd.Device.GetStatus")["classes"] as? [[String: Any]] ?? []
        #expect(classes.contains { $0["class"] as? String == "completeUnlessOpen" && $0["keyAvailable"] as? Bool == false })
        #expect(!daemon.log.contains("connection_dropped_protected_output"))
        try admin.ok("io.widgetd.Provider.CloseTimeline", ["widget": widget])
        try admin.ok("io.widgetd.Device.GetStatus")
        let line = daemon.log.split(separator: "\n").first { $0.contains("connection_dropped_protected_output") }
        #expect(line?.contains("completeUnlessOpen") == true, "\(daemon.log)")
    }

    /// A host's presentation is content too: a host that asks for a large class-A
    /// presentation (twice: the second comes from the presentation cache) and does not
    /// read loses it, and its connection, when class A is purged.
    @Test func unsentClassAPresentationsAreDroppedWhenClassAIsPurged() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0.5"])
        try daemon.start()
        let pid = try #require(daemon.process?.processIdentifier)
        let tag = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
        let marker = "SHOWN\(tag)A"
        let widget = "com.example.health/shown"
        let value = String(repeating: marker + " ", count: 15000 / (marker.count + 1))
        var fields: [String: Any] = [:]
        for index in 0..<30 { fields["f\(index)"] = ["value": value, "privacy": "sensitive"] }
        let admin = try daemon.client()
        try admin.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try admin.ok("io.widgetd.Provider.PutTimeline", [
            "widget": widget, "family": "systemSmall", "placeholder": Fixtures.placeholder,
            "entries": [["date": Fixtures.rfc3339(Date().addingTimeInterval(-60)), "fields": fields]],
        ])
        let host = try daemon.client()
        for _ in 0..<2 { try host.send("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": "homeScreen"]) }
        usleep(300_000)
        try admin.ok("io.widgetd.Device.Lock")
        var purged = false
        for _ in 0..<300 where !purged {
            let classes = try admin.ok("io.widgetd.Device.GetStatus")["classes"] as? [[String: Any]] ?? []
            purged = classes.contains { $0["class"] as? String == "complete" && $0["keyAvailable"] as? Bool == false }
            if !purged { usleep(50_000) }
        }
        try #require(purged, "class A was not purged within 15 s")
        try admin.ok("io.widgetd.Device.GetStatus")
        let findings = try MemoryHygieneTests.search(pid: pid, for: [marker])
        #expect(findings.isEmpty, "\(findings.count) copies left, e.g.:\n\(findings.prefix(3).map(\.description).joined(separator: "\n"))")
        #expect(daemon.log.contains("connection_dropped_protected_output"))
    }
}
