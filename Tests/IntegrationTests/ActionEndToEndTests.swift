import Foundation
import Testing

/// Actions over the socket (DESIGN §13): the policy table row by row, the rule that a
/// host performs only what its surface shows now, held actions and their ends, the
/// provider's stream, and `invalidated` while an action waits for its answer.
@Suite struct ActionEndToEndTests {
    static let clock = "com.example.clock/timer"  // class none
    static let weather = "com.example.weather/forecast"  // class C
    static let health = "com.example.health/steps"  // class A

    static func action(_ id: String, _ policy: String, toggle: Bool? = nil, privacy: String? = nil) -> [String: Any] {
        var action: [String: Any] = ["id": id, "title": "Do \(id)", "kind": toggle == nil ? "button" : "toggle", "authentication": policy]
        if let toggle { action["isOn"] = toggle }
        if let privacy { action["privacy"] = privacy }
        return action
    }

    /// A timeline of one entry with `actions`, and a placeholder with `placeholderActions`.
    static func put(_ widget: String, actions: [[String: Any]], placeholderActions: [[String: Any]] = [], text: String = "now") -> [String: Any] {
        [
            "widget": widget,
            "entries": [[
                "date": Fixtures.rfc3339(Date().addingTimeInterval(-60)),
                "fields": ["t": ["value": text, "role": "title"], "v": ["value": 0.5, "role": "gauge"]],
                "actions": actions,
            ]],
            "policy": ["kind": "never"],
            "placeholder": ["fields": ["t": ["value": "Timer", "privacy": "public", "role": "title"]], "actions": placeholderActions],
        ]
    }

    /// A provider connection watching actions. Its own first round trip has the daemon
    /// accept and poll it; the round trip on `control` after the watch then makes sure
    /// the daemon has read the watch (both sockets were readable in that loop turn).
    static func watchActions(_ daemon: DaemonProcess, _ control: VarlinkTestClient, provider: String? = nil) throws -> VarlinkTestClient {
        let client = try daemon.client()
        _ = try client.ok("io.widgetd.Device.GetStatus")
        try client.send("io.widgetd.Provider.WatchActions", provider.map { ["provider": $0] } ?? [:], more: true)
        _ = try control.ok("io.widgetd.Device.GetStatus")
        return client
    }

    static func actions(_ reply: VarlinkTestClient.Reply) -> [[String: Any]] {
        Fixtures.presentation(reply.parameters)["actions"] as? [[String: Any]] ?? []
    }

    static func reasons(_ reply: VarlinkTestClient.Reply) -> [String] {
        Fixtures.presentation(reply.parameters)["reasons"] as? [String] ?? []
    }

    @Test func anAlwaysAllowedToggleIsDeliveredWhileLockedAndInvalidatesUntilAnswered() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok("io.widgetd.Provider.PutTimeline", Self.put(Self.clock, actions: [Self.action("play", "alwaysAllowed", toggle: false)]))
        let provider = try Self.watchActions(daemon, control, provider: "com.example.clock")
        try control.ok("io.widgetd.Device.Lock")

        let shown = try control.call("io.widgetd.Host.GetPresentation", ["widget": Self.clock, "surface": "lockScreen"])
        #expect(Self.actions(shown).first?["available"] as? Bool == true)
        let performed = try control.call(
            "io.widgetd.Host.PerformAction", ["widget": Self.clock, "surface": "lockScreen", "action": "play"])
        #expect(performed.parameters["outcome"] as? String == "delivered")
        let delivery = try provider.receive()
        #expect(delivery.continues)
        #expect(delivery.parameters["widget"] as? String == Self.clock)
        #expect(delivery.parameters["action"] as? String == "play")
        #expect(delivery.parameters["isOn"] as? Bool == true)
        #expect(delivery.parameters["whileLocked"] as? Bool == true)
        #expect(delivery.parameters["surface"] as? String == "lockScreen")

        // The content is being updated until the provider answers (iOS 17's meaning).
        let waiting = try control.call("io.widgetd.Host.GetPresentation", ["widget": Self.clock, "surface": "lockScreen"])
        #expect(Self.reasons(waiting).contains("invalidated"))
        try control.ok("io.widgetd.Provider.PutTimeline", Self.put(Self.clock, actions: [Self.action("play", "alwaysAllowed", toggle: true)]))
        let answered = try control.call("io.widgetd.Host.GetPresentation", ["widget": Self.clock, "surface": "lockScreen"])
        #expect(!Self.reasons(answered).contains("invalidated"))
        #expect(Self.actions(answered).first?["isOn"] as? Bool == true)
    }

    /// The security rule: a host cannot run a class-A entry's action while its surface
    /// shows the placeholder, whatever the action's policy.
    @Test func aHostCannotPerformWhatItsSurfaceDoesNotShow() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok(
            "io.widgetd.Provider.PutTimeline",
            Self.put(Self.health, actions: [Self.action("log", "alwaysAllowed"), Self.action("open", "requiresAuthentication")]))
        let provider = try Self.watchActions(daemon, control)
        // Unlocked, the entry's actions are shown and performed.
        let unlocked = try control.call(
            "io.widgetd.Host.PerformAction", ["widget": Self.health, "surface": "lockScreen", "action": "log"])
        #expect(unlocked.parameters["outcome"] as? String == "delivered", "\(unlocked.object)")
        #expect(try provider.receive().parameters["action"] as? String == "log")

        try control.ok("io.widgetd.Device.Lock")
        let shown = try control.call("io.widgetd.Host.GetPresentation", ["widget": Self.health, "surface": "lockScreen"])
        #expect(Fixtures.mode(shown.parameters) == "placeholder")
        #expect(Self.actions(shown).isEmpty)
        for action in ["log", "open"] {
            let refused = try control.call(
                "io.widgetd.Host.PerformAction", ["widget": Self.health, "surface": "lockScreen", "action": action])
            #expect(refused.error == "io.widgetd.ActionNotAvailable")
            #expect(refused.parameters["action"] as? String == action)
        }
        #expect(provider.receive(within: 1) == nil)
    }

    @Test func anActionThatNeedsAnUnlockIsHeldAndDeliveredByTheUnlock() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok("io.widgetd.Provider.PutTimeline", Self.put(Self.weather, actions: [Self.action("open", "requiresAuthentication")]))
        let provider = try Self.watchActions(daemon, control)
        try control.ok("io.widgetd.Device.Lock")
        let shown = try control.call("io.widgetd.Host.GetPresentation", ["widget": Self.weather, "surface": "lockScreen"])
        #expect(Self.actions(shown).first?["available"] as? Bool == false)
        #expect(Self.actions(shown).first?["requires"] as? String == "unlock")

        let host = try daemon.client()
        try host.send("io.widgetd.Host.PerformAction", ["widget": Self.weather, "surface": "lockScreen", "action": "open"], more: true)
        let held = try host.receive()
        #expect(held.parameters["outcome"] as? String == "held" && held.continues)
        #expect(provider.receive(within: 1) == nil)

        try control.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        let final = try host.receive()
        #expect(final.parameters["outcome"] as? String == "delivered" && !final.continues)
        let delivery = try provider.receive()
        #expect(delivery.parameters["action"] as? String == "open")
        #expect(delivery.parameters["whileLocked"] as? Bool == false)
    }

    @Test func aLockOrANewerHeldActionExpiresAHeldOne() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok(
            "io.widgetd.Provider.PutTimeline",
            Self.put(Self.weather, actions: [Self.action("a", "requiresAuthentication"), Self.action("b", "requiresLocalDeviceAuthentication")]))
        let provider = try Self.watchActions(daemon, control)
        try control.ok("io.widgetd.Device.Lock")
        let perform = { (client: VarlinkTestClient, action: String, more: Bool) throws -> String? in
            try client.send(
                "io.widgetd.Host.PerformAction", ["widget": Self.weather, "surface": "lockScreen", "action": action], more: more)
            return try client.receive().parameters["outcome"] as? String
        }
        // A lock drops what waits for an unlock; a host that streams hears it.
        let host = try daemon.client()
        let other = try daemon.client()
        #expect(try perform(host, "a", true) == "held")
        #expect(try perform(other, "b", true) == "held")
        try control.ok("io.widgetd.Device.Lock")
        #expect(try host.receive().parameters["outcome"] as? String == "expired")
        #expect(try other.receive().parameters["outcome"] as? String == "expired")
        // One held action per connection: a newer one replaces it (calls without "more"
        // end at "held", so the connection can make the next).
        let third = try daemon.client()
        #expect(try perform(third, "a", false) == "held")
        #expect(try perform(third, "b", false) == "held")
        try control.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(try provider.receive().parameters["action"] as? String == "b")
        #expect(provider.receive(within: 1) == nil)
    }

    @Test func aHeldActionExpiresAfterActionHoldSec() throws {
        // 0 s: the expiry timer runs on the loop's next turn, so nothing here waits on time.
        let daemon = try DaemonProcess(daemon: ["ActionHoldSec=0"])
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok("io.widgetd.Provider.PutTimeline", Self.put(Self.weather, actions: [Self.action("open", "requiresAuthentication")]))
        let provider = try Self.watchActions(daemon, control)
        try control.ok("io.widgetd.Device.Lock")
        let host = try daemon.client()
        try host.send("io.widgetd.Host.PerformAction", ["widget": Self.weather, "surface": "lockScreen", "action": "open"], more: true)
        #expect(try host.receive().parameters["outcome"] as? String == "held")
        #expect(try host.receive().parameters["outcome"] as? String == "expired")
        try control.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(provider.receive(within: 1) == nil)
    }

    @Test func remoteRunsOnlyWhatNeedsNoUnlockHere() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok(
            "io.widgetd.Provider.PutTimeline",
            Self.put(Self.weather, actions: [Self.action("open", "requiresAuthentication"), Self.action("pay", "requiresLocalDeviceAuthentication")]))
        let provider = try Self.watchActions(daemon, control)
        let open = try control.call("io.widgetd.Host.PerformAction", ["widget": Self.weather, "surface": "remote", "action": "open"])
        #expect(open.parameters["outcome"] as? String == "delivered")
        _ = try provider.receive()
        let pay = try control.call("io.widgetd.Host.PerformAction", ["widget": Self.weather, "surface": "remote", "action": "pay"])
        #expect(pay.error == "io.widgetd.UnavailableOnSurface")
        try control.ok("io.widgetd.Device.Lock")
        let locked = try control.call("io.widgetd.Host.PerformAction", ["widget": Self.weather, "surface": "remote", "action": "open"])
        #expect(locked.error == "io.widgetd.UnavailableOnSurface")
    }

    @Test func noWatchingProviderIsProviderUnavailable() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Provider.PutTimeline", Self.put(Self.clock, actions: [Self.action("play", "alwaysAllowed", toggle: false)]))
        let refused = try control.call("io.widgetd.Host.PerformAction", ["widget": Self.clock, "surface": "homeScreen", "action": "play"])
        #expect(refused.error == "io.widgetd.ProviderUnavailable")
        #expect(refused.parameters["provider"] as? String == "com.example.clock")
        // Another provider's stream does not hear it.
        let weather = try Self.watchActions(daemon, control, provider: "com.example.weather")
        #expect(try control.call("io.widgetd.Host.PerformAction", ["widget": Self.clock, "surface": "homeScreen", "action": "play"]).error
            == "io.widgetd.ProviderUnavailable")
        #expect(try control.call("io.widgetd.Provider.WatchActions").error == "org.varlink.service.ExpectedMore")
        withExtendedLifetime(weather) {}  // its stream stays open to the end
    }

    @Test func aFloodingHostIsToldToTryAgainLater() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Provider.PutTimeline", Self.put(Self.clock, actions: [Self.action("tap", "alwaysAllowed")]))
        let provider = try Self.watchActions(daemon, control)
        let host = try daemon.client()
        var outcomes: [String] = []
        // Far more than a person taps in a second, sent at once.
        for _ in 0..<40 {
            try host.send("io.widgetd.Host.PerformAction", ["widget": Self.clock, "surface": "homeScreen", "action": "tap"])
        }
        for _ in 0..<40 {
            let reply = try host.receive()
            outcomes.append(reply.error ?? (reply.parameters["outcome"] as? String ?? "?"))
        }
        #expect(outcomes.filter { $0 == "delivered" }.count <= 16)
        #expect(outcomes.contains("io.widgetd.TryAgainLater"))
        // Another host is not slowed.
        #expect(try control.call("io.widgetd.Host.PerformAction", ["widget": Self.clock, "surface": "homeScreen", "action": "tap"])
            .parameters["outcome"] as? String == "delivered")
        withExtendedLifetime(provider) {}  // its stream takes the deliveries to the end
    }

    @Test func watchWidgetsFollowsTheStore() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        let host = try daemon.client()
        // As `watchActions`: the daemon has read the watch before the first write.
        _ = try host.ok("io.widgetd.Device.GetStatus")
        try host.send("io.widgetd.Host.WatchWidgets", more: true)
        _ = try control.ok("io.widgetd.Device.GetStatus")
        try control.ok("io.widgetd.Provider.PutTimeline", Self.put(Self.clock, actions: []))
        let added = try host.receive()
        #expect(added.parameters["event"] as? String == "added")
        #expect((added.parameters["widget"] as? [String: Any])?["widget"] as? String == Self.clock)
        // A new generation of a known widget is no event; a new family is.
        try control.ok("io.widgetd.Provider.PutTimeline", Self.put(Self.clock, actions: [], text: "later"))
        var changed = Self.put(Self.clock, actions: [])
        changed["family"] = "accessoryCircular"
        try control.ok("io.widgetd.Provider.PutTimeline", changed)
        #expect(try host.receive().parameters["event"] as? String == "changed")
        try control.ok("io.widgetd.Provider.DeleteTimeline", ["widget": Self.clock])
        #expect(try host.receive().parameters["event"] as? String == "removed")
    }

    @Test func aRoleThatDoesNotFitIsRefusedAndNothingIsStored() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        var bad = Self.put(Self.clock, actions: [])
        bad["entries"] = [["date": Fixtures.rfc3339(Date()), "fields": ["v": ["value": 7, "role": "gauge"]]]]
        let refused = try control.call("io.widgetd.Provider.PutTimeline", bad)
        #expect(refused.error == "io.widgetd.InvalidTimeline")
        #expect((refused.parameters["reason"] as? String)?.contains(#"fields["v"]: role "gauge": value lies outside its range [0, 1]"#) == true)
        #expect(try control.call("io.widgetd.Provider.GetTimeline", ["widget": Self.clock]).error == "io.widgetd.WidgetNotFound")
    }
}
