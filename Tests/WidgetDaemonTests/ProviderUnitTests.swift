import Foundation
import Testing
@testable import WidgetDaemon

/// `[Provider] Unit=` (DESIGN §14): an action that finds no connection of its provider
/// watching starts the provider's unit and waits for it, as iOS launches a widget
/// extension; on the manual scheduler, so nothing here waits on time.
@Suite struct ProviderUnitTests {
    /// Records the units it is asked to start.
    final class RecordingStarter: UnitStarter {
        var started: [String] = []
        func start(_ unit: String) { started.append(unit) }
    }

    static let widget = "com.example.clock/player"

    static func harness(unit: String?) throws -> (ServiceHarness, RecordingStarter) {
        let harness = try ServiceHarness { configuration in
            configuration.actionHoldSeconds = 30
            configuration.providers = configuration.providers.map { registration in
                var registration = registration
                if registration.id == "com.example.clock" { registration.unit = unit }
                return registration
            }
        }
        let starter = RecordingStarter()
        harness.service.timelines.unitStarter = starter
        harness.ok("io.widgetd.Provider.PutTimeline", [
            "widget": widget,
            "entries": [[
                "date": ServiceHarness.rfc3339(ServiceHarness.start.addingTimeInterval(-60)),
                "fields": ["t": ["value": "Music", "role": "title"]],
                "actions": [["id": "play", "title": "Play", "kind": "toggle", "isOn": false, "authentication": "alwaysAllowed"]],
            ]],
            "policy": ["kind": "never"],
        ])
        return (harness, starter)
    }

    static func perform(_ harness: ServiceHarness) -> ServiceHarness.Call {
        harness.call(
            "io.widgetd.Host.PerformAction", ["widget": widget, "surface": "lockScreen", "action": "play"], more: true)
    }

    @Test func anActionStartsTheProvidersUnitAndIsDeliveredWhenItWatches() throws {
        let (harness, starter) = try Self.harness(unit: "widgetd-provider-media.service")
        let host = Self.perform(harness)
        #expect(starter.started == ["widgetd-provider-media.service"])
        #expect(host.parameters["outcome"] as? String == "held" && !host.isAnswered)

        let provider = harness.call("io.widgetd.Provider.WatchActions", ["provider": "com.example.clock"], more: true)
        #expect(provider.parameters["action"] as? String == "play")
        #expect(provider.parameters["isOn"] as? Bool == true)
        #expect(host.isAnswered && host.parameters["outcome"] as? String == "delivered")
    }

    @Test func aDueReloadNobodyHearsStartsTheUnitAndIsHeardOnceItWatches() throws {
        let (harness, starter) = try Self.harness(unit: "widgetd-provider-media.service")
        harness.ok("io.widgetd.Provider.PutTimeline", [
            "widget": "com.example.clock/due",
            "entries": [["date": ServiceHarness.rfc3339(ServiceHarness.start.addingTimeInterval(-60)), "fields": [:]]],
            "policy": ["kind": "after", "date": ServiceHarness.rfc3339(ServiceHarness.start.addingTimeInterval(60))],
        ])
        #expect(starter.started.isEmpty)
        harness.scheduler.sleep(for: 61)
        harness.scheduler.run()
        #expect(starter.started == ["widgetd-provider-media.service"])
        let reloads = harness.call("io.widgetd.Provider.WatchReloads", more: true)
        #expect(reloads.parameters["widget"] as? String == "com.example.clock/due")
    }

    @Test func withoutUnitNoWatcherIsProviderUnavailable() throws {
        let (harness, starter) = try Self.harness(unit: nil)
        let host = Self.perform(harness)
        #expect(host.error == "io.widgetd.ProviderUnavailable")
        #expect(starter.started.isEmpty)
    }

    @Test func aProviderThatNeverComesExpiresTheActionAndIsNotStartedInALoop() throws {
        let (harness, starter) = try Self.harness(unit: "widgetd-provider-media.service")
        let first = Self.perform(harness)
        harness.scheduler.advance(by: 31)
        #expect(first.isAnswered && first.parameters["outcome"] as? String == "expired")
        #expect(starter.started.count == 1)
        // Past the restart interval, the next action asks again; one right after it does not.
        _ = Self.perform(harness)
        _ = Self.perform(harness)
        #expect(starter.started.count == 2)
        let provider = harness.call("io.widgetd.Provider.WatchActions", more: true)
        #expect(provider.parameters["action"] as? String == "play")
    }

    @Test func theUnitKeyIsReadAndChecked() throws {
        let parser = ConfigurationParser(resolver: TableResolver())
        func parse(_ unit: String) throws -> Configuration {
            try parser.parse(
                main: nil as ConfigurationSource?, dropIns: [],
                providers: [ConfigurationSource(path: "providers.d/0.conf", text: "[Provider]\nId=org.x\nUser=0\nUnit=\(unit)\n")])
        }
        #expect(try parse("widgetd-provider-media.service").provider(id: "org.x")?.unit == "widgetd-provider-media.service")
        for bad in ["/etc/passwd", "x.socket", "a b.service", ".service"] {
            let refused = try parse(bad)
            #expect(refused.provider(id: "org.x") == nil, "\(bad)")
            #expect(refused.problems.first?.description.contains("for Unit=: expected a service unit's name") == true, "\(bad)")
        }
    }
}
