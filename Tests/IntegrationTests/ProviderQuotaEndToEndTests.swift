import Foundation
import Testing

/// Nothing unbounded per provider (issue 13, defect 9): `MaxWidgets=` and `MaxBytes=`
/// in `providers.d`, defaults in `[Daemon]`; a write past either is refused with
/// `io.widgetd.TooLarge(limit)` and changes nothing, and the count survives restarts.
@Suite struct ProviderQuotaEndToEndTests {
    static let provider = "com.example.clock"
    static func widget(_ n: Int) -> String { "\(provider)/w\(n)" }

    /// A daemon whose clock provider has these `[Provider]` lines added.
    static func daemon(provider lines: [String], daemon: [String] = []) throws -> DaemonProcess {
        let process = try DaemonProcess(daemon: daemon)
        let file = process.root.appendingPathComponent("etc/providers.d/\(provider).conf")
        let text = try String(contentsOf: file, encoding: .utf8) + lines.map { $0 + "\n" }.joined()
        try text.write(to: file, atomically: true, encoding: .utf8)
        try process.start()
        return process
    }

    static func put(_ client: VarlinkTestClient, _ widget: String, text: String = "x") throws -> VarlinkTestClient.Reply {
        let entry: [String: Any] = ["date": Fixtures.rfc3339(Date()), "fields": ["t": ["value": text]]]
        return try client.call("io.widgetd.Provider.PutTimeline", ["widget": widget, "entries": [entry]])
    }

    static func listed(_ client: VarlinkTestClient) throws -> [String] {
        let widgets = try client.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [[String: Any]] ?? []
        return widgets.compactMap { $0["widget"] as? String }.filter { $0.hasPrefix(provider + "/") }
    }

    @Test func aWidgetPastMaxWidgetsIsRefusedAndADeleteFreesItsPlace() throws {
        let daemon = try Self.daemon(provider: ["MaxWidgets=3"])
        let client = try daemon.client()
        for n in 1...3 { #expect(try Self.put(client, Self.widget(n)).error == nil) }
        let refused = try Self.put(client, Self.widget(4))
        #expect(refused.error == "io.widgetd.TooLarge")
        #expect(refused.parameters["limit"] as? Int == 3)
        #expect(try Self.listed(client) == (1...3).map(Self.widget))
        // Replacing a stored widget at the quota still works; other providers are not counted.
        #expect(try Self.put(client, Self.widget(2), text: "y").parameters["generation"] as? Int == 2)
        #expect(try Self.put(client, "com.example.weather/forecast").error == nil)
        try client.ok("io.widgetd.Provider.DeleteTimeline", ["widget": Self.widget(1)])
        #expect(try Self.put(client, Self.widget(4)).error == nil)
        #expect(try Self.listed(client) == [2, 3, 4].map(Self.widget))
    }

    @Test func theDaemonDefaultAppliesToProvidersWithoutTheirOwn() throws {
        let daemon = try Self.daemon(provider: [], daemon: ["MaxWidgetsPerProvider=2"])
        let client = try daemon.client()
        for n in 1...2 { #expect(try Self.put(client, Self.widget(n)).error == nil) }
        let refused = try Self.put(client, Self.widget(3))
        #expect(refused.error == "io.widgetd.TooLarge")
        #expect(refused.parameters["limit"] as? Int == 2)
    }

    @Test func bytesPastMaxBytesAreRefusedForPutAndAppendAndASameSizeReplacementIsNot() throws {
        // Two timelines of a 1500-byte field take a little over 3.5 KiB as files.
        let big = String(repeating: "a", count: 1500)
        let daemon = try Self.daemon(provider: ["MaxBytes=4K"])
        let client = try daemon.client()
        #expect(try Self.put(client, Self.widget(1), text: big).error == nil)
        #expect(try Self.put(client, Self.widget(2), text: big).error == nil)
        let refused = try Self.put(client, Self.widget(3), text: big)
        #expect(refused.error == "io.widgetd.TooLarge")
        #expect(refused.parameters["limit"] as? Int == 4096)
        // Same size again: the quota counts the replacement's difference only.
        let replaced = try Self.put(client, Self.widget(1), text: String(repeating: "b", count: 1500))
        #expect(replaced.parameters["generation"] as? Int == 2)
        // An append that would pass the quota is refused and leaves the timeline as it was.
        let entry: [String: Any] = ["date": Fixtures.rfc3339(Date().addingTimeInterval(60)), "fields": ["t": ["value": big]]]
        let append = try client.call("io.widgetd.Provider.AppendEntries", ["widget": Self.widget(2), "entries": [entry]])
        #expect(append.error == "io.widgetd.TooLarge")
        #expect(append.parameters["limit"] as? Int == 4096)
        let timeline = try client.ok("io.widgetd.Provider.GetTimeline", ["widget": Self.widget(2)])
        #expect(timeline["generation"] as? Int == 1)
        #expect((timeline["entries"] as? [Any])?.count == 1)
        #expect(try Self.listed(client) == [1, 2].map(Self.widget))
    }

    @Test func theAccountingSurvivesARestart() throws {
        let daemon = try Self.daemon(provider: ["MaxWidgets=3"])
        do {
            let client = try daemon.client()
            for n in 1...3 { #expect(try Self.put(client, Self.widget(n)).error == nil) }
        }
        _ = daemon.stop()
        try daemon.start()
        // The first call after the start: the index is not complete yet unless the write waits for it.
        let client = try daemon.client()
        let refused = try Self.put(client, Self.widget(4))
        #expect(refused.error == "io.widgetd.TooLarge")
        #expect(refused.parameters["limit"] as? Int == 3)
        try client.ok("io.widgetd.Provider.DeleteTimeline", ["widget": Self.widget(3)])
        _ = daemon.stop()
        try daemon.start()
        let again = try daemon.client()
        #expect(try Self.put(again, Self.widget(4)).error == nil)
        #expect(try Self.put(again, Self.widget(5)).error == "io.widgetd.TooLarge")
    }

    /// With no quota configured at all, the default (1000 widgets) still bounds a provider.
    @Test func theDefaultQuotaBoundsAProviderThatSetsNone() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        let date = Fixtures.rfc3339(Date())
        for n in 0..<1000 {
            try client.ok("io.widgetd.Provider.PutTimeline", ["widget": Self.widget(n), "entries": [["date": date, "fields": [:] as [String: Any]]]])
        }
        let refused = try client.call(
            "io.widgetd.Provider.PutTimeline", ["widget": Self.widget(1000), "entries": [["date": date, "fields": [:] as [String: Any]]]])
        #expect(refused.error == "io.widgetd.TooLarge")
        #expect(refused.parameters["limit"] as? Int == 1000)
    }
}
