import Foundation
import Testing

@testable import WidgetDaemon

/// `ListWidgets` without a limit and paged with one are the same listing: on one
/// store, the unpaged reply equals its pages joined, field for field, for every
/// provider filter and starting point.
@Suite struct ServiceListWidgetsTests {
    /// Widgets of three providers, put in an order that is not id order; instances sort
    /// between kinds (`#` before letters).
    static let widgets = [
        "com.example.clock/world#9", "com.example.weather/forecast", "com.example.clock/alarm",
        "com.example.clock/world#10", "com.example.weather/forecast#lock-1", "com.example.clock/timer",
        "com.example.health/rings", "com.example.weather/radar", "com.example.clock/world",
    ]

    static func harness() throws -> ServiceHarness {
        let harness = try ServiceHarness()
        for widget in widgets { harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widget)) }
        // A second generation of one, so generations differ between widgets.
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters("com.example.clock/alarm"))
        return harness
    }

    /// The listed widgets as canonical JSON, every field included.
    static func canonical(_ widgets: [Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: widgets, options: .sortedKeys), as: UTF8.self)
    }

    /// Every page of `limit` from `after`, joined.
    static func paged(_ harness: ServiceHarness, limit: Int, provider: String?, after: String?) -> [Any] {
        var widgets: [Any] = []
        var after = after
        var pages = 0
        repeat {
            var parameters: [String: Any] = ["limit": limit]
            if let provider { parameters["provider"] = provider }
            if let after { parameters["after"] = after }
            let page = harness.ok("io.widgetd.Host.ListWidgets", parameters)
            widgets += page["widgets"] as? [Any] ?? []
            after = page["next"] as? String
            pages += 1
        } while after != nil && pages <= Self.widgets.count
        return widgets
    }

    @Test(arguments: [nil, "com.example.clock", "com.example.weather", "com.example.nobody"] as [String?])
    func unpagedEqualsItsPagesJoined(provider: String?) throws {
        let harness = try Self.harness()
        for after in [nil, "com.example.clock/world", "com.example.clock/world#10", "com.example.health/rings"] as [String?] {
            var parameters: [String: Any] = [:]
            if let provider { parameters["provider"] = provider }
            if let after { parameters["after"] = after }
            let whole = harness.ok("io.widgetd.Host.ListWidgets", parameters)
            #expect(whole["next"] == nil)
            let unpaged = try Self.canonical(whole["widgets"] as? [Any] ?? [])
            for limit in [1, 2, 3, 100] {
                let joined = try Self.canonical(Self.paged(harness, limit: limit, provider: provider, after: after))
                #expect(joined == unpaged, "limit \(limit), after \(after ?? "-")")
            }
        }
    }

    /// The unpaged listing holds every stored widget of the provider, in id order.
    @Test func unpagedListsEveryWidgetInIdOrder() throws {
        let harness = try Self.harness()
        let listed = (harness.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [[String: Any]] ?? [])
            .compactMap { $0["widget"] as? String }
        #expect(listed == Self.widgets.sorted())
    }
}
