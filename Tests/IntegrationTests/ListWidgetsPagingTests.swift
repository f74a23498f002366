import Foundation
import Testing

/// `ListWidgets(provider?, after?, limit?) -> (widgets, next?)` (issue 13, defect 9):
/// without `limit` every widget; with it pages in widget id order, each
/// widget exactly once; bad `after` or `limit` is `org.varlink.service.InvalidParameter`.
@Suite struct ListWidgetsPagingTests {
    /// Seven widgets of two providers, put in an order that is not id order.
    static let widgets = [
        "com.example.clock/world#9", "com.example.weather/forecast", "com.example.clock/alarm",
        "com.example.clock/world#10", "com.example.weather/forecast#lock-1", "com.example.clock/timer",
        "com.example.weather/radar",
    ]

    static func daemon() throws -> (DaemonProcess, VarlinkTestClient) {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        for widget in widgets { try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(widget)) }
        return (daemon, client)
    }

    /// Every page from the start, and the replies' raw parameters.
    static func pages(_ client: VarlinkTestClient, limit: Int, provider: String? = nil) throws -> [[String: Any]] {
        var pages: [[String: Any]] = []
        var after: String?
        repeat {
            var parameters: [String: Any] = ["limit": limit]
            if let provider { parameters["provider"] = provider }
            if let after { parameters["after"] = after }
            let page = try client.ok("io.widgetd.Host.ListWidgets", parameters)
            pages.append(page)
            after = page["next"] as? String
            #expect(pages.count <= widgets.count + 1, "paging does not end")
        } while after != nil && pages.count <= widgets.count + 1
        return pages
    }

    static func ids(_ page: [String: Any]) -> [String] {
        (page["widgets"] as? [[String: Any]] ?? []).compactMap { $0["widget"] as? String }
    }

    @Test(arguments: [1, 2, 3, 7, 100])
    func pagesReturnEveryWidgetOnceInIdOrder(limit: Int) throws {
        let (daemon, client) = try Self.daemon()
        _ = daemon
        let pages = try Self.pages(client, limit: limit)
        #expect(pages.flatMap(Self.ids) == Self.widgets.sorted())
        #expect(pages.allSatisfy { Self.ids($0).count <= limit })
        #expect(pages.count == (Self.widgets.count + limit - 1) / limit)
        // `next` only while more remain: the last page has none.
        #expect(pages.last?["next"] == nil)
    }

    @Test(arguments: [1, 2, 5])
    func aProviderFilterPagesThroughItsOwnOnly(limit: Int) throws {
        let (daemon, client) = try Self.daemon()
        _ = daemon
        let clock = Self.widgets.filter { $0.hasPrefix("com.example.clock/") }.sorted()
        #expect(try Self.pages(client, limit: limit, provider: "com.example.clock").flatMap(Self.ids) == clock)
        let all = try client.ok("io.widgetd.Host.ListWidgets", ["provider": "com.example.weather"])
        #expect(Self.ids(all) == Self.widgets.filter { $0.hasPrefix("com.example.weather/") }.sorted())
        #expect(Self.ids(try client.ok("io.widgetd.Host.ListWidgets", ["provider": "com.example.nobody"])).isEmpty)
    }

    @Test func withoutLimitEveryWidgetAndNoNext() throws {
        let (daemon, client) = try Self.daemon()
        _ = daemon
        let all = try client.ok("io.widgetd.Host.ListWidgets")
        #expect(Self.ids(all) == Self.widgets.sorted())
        #expect(all["next"] == nil)
        // `after` alone: everything after it.
        let after = try client.ok("io.widgetd.Host.ListWidgets", ["after": "com.example.clock/world#9"])
        #expect(Self.ids(after) == Self.widgets.sorted().filter { $0 > "com.example.clock/world#9" })
        #expect(after["next"] == nil)
    }

    /// Each case: the parameters as JSON text, and the parameter the error must name.
    @Test(arguments: [
        (#"{"limit":0}"#, "limit"), (#"{"limit":-1}"#, "limit"), (#"{"limit":1.5}"#, "limit"), (#"{"limit":"3"}"#, "limit"),
        (#"{"after":"not a widget"}"#, "after"), (#"{"after":""}"#, "after"), (#"{"after":5}"#, "after"),
        (#"{"provider":"com/example"}"#, "provider"), (#"{"provider":""}"#, "provider"),
    ])
    func badParametersAreInvalidParameterNamingThem(parameters: String, name: String) throws {
        let (daemon, client) = try Self.daemon()
        _ = daemon
        let object = try JSONSerialization.jsonObject(with: Data(parameters.utf8)) as? [String: Any] ?? [:]
        let reply = try client.call("io.widgetd.Host.ListWidgets", object)
        #expect(reply.error == "org.varlink.service.InvalidParameter")
        #expect(reply.parameters["parameter"] as? String == name)
    }

    /// `widgetctl list` pages through every widget (its pages are 500) and takes `--provider`.
    @Test func widgetctlListPagesThroughAllAndFiltersByProvider() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        let many = (0..<501).map { "com.example.clock/w\($0)" }
        let date = Fixtures.rfc3339(Date())
        for widget in many {
            try client.ok("io.widgetd.Provider.PutTimeline", ["widget": widget, "entries": [["date": date, "fields": [:] as [String: Any]]]])
        }
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast"))
        let env = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "WIDGETD_SOCKET": daemon.socketPath]
        let json = try ProcessRunner.run(WidgetctlTests.binary, ["--json", "list"], environment: env)
        #expect(json.status == 0, "\(json.error)")
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let listed = (object?["widgets"] as? [[String: Any]] ?? []).compactMap { $0["widget"] as? String }
        #expect(listed == (many + ["com.example.weather/forecast"]).sorted())
        let clock = try ProcessRunner.run(WidgetctlTests.binary, ["list", "--provider", "com.example.clock"], environment: env)
        #expect(clock.status == 0, "\(clock.error)")
        #expect(clock.output.split(separator: "\n").count == 1 + 501)
        #expect(!clock.output.contains("com.example.weather"))
        let bad = try ProcessRunner.run(WidgetctlTests.binary, ["list", "--provider", "a/b"], environment: env)
        #expect(bad.status == 64)
    }
}
