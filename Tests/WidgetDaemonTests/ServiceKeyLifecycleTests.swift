import Foundation
import Testing
import WidgetModel

@testable import WidgetDaemon

/// The whole key lifecycle (DESIGN §3, §4) as one table, through the service on a manual
/// clock: from each state, with or without a passcode, each event → the state, the
/// classes whose keys are held, what a host is shown for a widget of each class, and
/// the events a monitor hears.
@Suite struct ServiceKeyLifecycleTests {
    enum Start: String, Sendable, CaseIterable {
        /// A new store: no passcode, so unlocked by itself.
        case noPasscode
        case unlockedWithPasscode
        /// Locked within class A's grace period.
        case lockedWithPasscode
        case lockedWithoutPasscode
        /// Restarted with a passcode set.
        case beforeFirstUnlock
    }

    enum Event: String, Sendable {
        case lock, unlockRight, unlockWrong, graceElapsed, setPasscode, removePasscode, wipe
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let start: Start
        let event: Event
        let state: String
        /// The classes held, by letter: A complete, B completeUnlessOpen, C
        /// completeUntilFirstUserAuthentication, D none.
        let keys: String
        /// The mode on the home screen of the widget of class A, B, C, D: `c` content,
        /// `p` placeholder.
        let shown: String
        /// The kinds of the events a monitor hears, in order.
        let events: [String]

        init(_ start: Start, _ event: Event, _ state: String, keys: String, shown: String, events: [String]) {
            self.start = start
            self.event = event
            self.state = state
            self.keys = keys
            self.shown = shown
            self.events = events
        }

        var testDescription: String { "\(start.rawValue) + \(event.rawValue)" }
    }

    static let rows: [Row] = [
        Row(.noPasscode, .lock, "locked", keys: "ABCD", shown: "pccc", events: ["state"]),
        Row(.noPasscode, .unlockRight, "unlocked", keys: "ABCD", shown: "cccc", events: ["state"]),
        Row(.noPasscode, .graceElapsed, "unlocked", keys: "ABCD", shown: "cccc", events: []),
        Row(.noPasscode, .setPasscode, "unlocked", keys: "ABCD", shown: "cccc", events: ["state"]),
        Row(.noPasscode, .wipe, "unlocked", keys: "ABCD", shown: "pppp", events: ["settings", "state"]),

        Row(.unlockedWithPasscode, .lock, "locked", keys: "ACD", shown: "ppcc", events: ["state"]),
        Row(.unlockedWithPasscode, .graceElapsed, "unlocked", keys: "ABCD", shown: "cccc", events: []),
        Row(.unlockedWithPasscode, .removePasscode, "unlocked", keys: "ABCD", shown: "cccc", events: ["state"]),
        Row(.unlockedWithPasscode, .wipe, "unlocked", keys: "ABCD", shown: "pppp", events: ["settings", "state"]),

        Row(.lockedWithPasscode, .lock, "locked", keys: "ACD", shown: "ppcc", events: ["state"]),
        Row(.lockedWithPasscode, .unlockRight, "unlocked", keys: "ABCD", shown: "cccc", events: ["state"]),
        Row(.lockedWithPasscode, .unlockWrong, "locked", keys: "ACD", shown: "ppcc", events: []),
        Row(.lockedWithPasscode, .graceElapsed, "locked", keys: "CD", shown: "ppcc", events: []),
        Row(.lockedWithPasscode, .removePasscode, "locked", keys: "ABCD", shown: "pccc", events: ["state"]),
        Row(.lockedWithPasscode, .wipe, "unlocked", keys: "ABCD", shown: "pppp", events: ["settings", "state"]),

        Row(.lockedWithoutPasscode, .unlockRight, "unlocked", keys: "ABCD", shown: "cccc", events: ["state"]),
        Row(.lockedWithoutPasscode, .graceElapsed, "locked", keys: "ABCD", shown: "pccc", events: []),
        Row(.lockedWithoutPasscode, .setPasscode, "locked", keys: "ACD", shown: "ppcc", events: ["state"]),

        Row(.beforeFirstUnlock, .lock, "beforeFirstUnlock", keys: "D", shown: "pppp", events: ["state"]),
        Row(.beforeFirstUnlock, .unlockRight, "unlocked", keys: "ABCD", shown: "cccc", events: ["state"]),
        Row(.beforeFirstUnlock, .unlockWrong, "beforeFirstUnlock", keys: "D", shown: "pppp", events: []),
        Row(.beforeFirstUnlock, .graceElapsed, "beforeFirstUnlock", keys: "D", shown: "pppp", events: []),
        Row(.beforeFirstUnlock, .removePasscode, "unlocked", keys: "ABCD", shown: "cccc", events: ["state"]),
    ]

    static let letters: [(Character, ProtectionClass)] = [
        ("A", .complete), ("B", .completeUnlessOpen), ("C", .completeUntilFirstUserAuthentication), ("D", .none),
    ]

    /// A harness in `start`, with a timeline of every class stored while unlocked.
    static func harness(in start: Start) throws -> ServiceHarness {
        let harness = try ServiceHarness(classAGrace: 10)
        harness.putEveryClass()
        switch start {
        case .noPasscode:
            break
        case .unlockedWithPasscode:
            harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        case .lockedWithPasscode:
            harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
            harness.ok("io.widgetd.Device.Lock")
        case .lockedWithoutPasscode:
            harness.ok("io.widgetd.Device.Lock")
        case .beforeFirstUnlock:
            harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
            try harness.restart()
        }
        return harness
    }

    static func apply(_ event: Event, to harness: ServiceHarness) {
        switch event {
        case .lock: harness.ok("io.widgetd.Device.Lock")
        case .unlockRight: harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        case .unlockWrong:
            #expect(harness.call("io.widgetd.Device.Unlock", ["passcode": "0000"]).error == "io.widgetd.WrongPasscode")
        case .graceElapsed: harness.scheduler.advance(by: 11)
        case .setPasscode: harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        case .removePasscode: harness.ok("io.widgetd.Device.SetPasscode", ["current": "1234"])
        case .wipe: harness.ok("io.widgetd.Device.Wipe", ["confirm": "WIPE"])
        }
    }

    @Test(arguments: rows)
    func eachEventLeavesTheKeysTheSurfacesAndTheEventsTheLifecyclePrescribes(row: Row) throws {
        let harness = try Self.harness(in: row.start)
        let monitor = harness.call("io.widgetd.Device.Monitor", more: true)
        let heard = monitor.replies.count
        Self.apply(row.event, to: harness)

        let status = harness.ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == row.state)
        let held = harness.heldClasses()
        let expectedKeys = Set(Self.letters.filter { row.keys.contains($0.0) }.map(\.1.rawValue))
        #expect(held == expectedKeys)

        let shown = String(Self.letters.map { letter, protection -> Character in
            switch harness.mode(ServiceHarness.widgets[protection]!) {
            case "content": "c"
            case "placeholder": "p"
            case "redacted": "r"
            default: "?"
            }
        })
        #expect(shown == row.shown)
        // Whatever the state: classes A and B are never shown on a remote surface, C and D as at home.
        for (letter, protection) in Self.letters {
            let remote = harness.call("io.widgetd.Host.GetPresentation", ["widget": ServiceHarness.widgets[protection]!, "surface": "remote"])
            if letter == "A" || letter == "B" {
                #expect(remote.error == "io.widgetd.UnavailableOnSurface")
            } else {
                #expect(remote.mode == harness.mode(ServiceHarness.widgets[protection]!))
            }
        }

        let events = monitor.replies.dropFirst(heard).map {
            (($0["parameters"] as? [String: Any])?["event"] as? [String: Any])?["kind"] as? String ?? "?"
        }
        #expect(events == row.events)
    }
}
