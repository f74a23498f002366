import FoundationEssentials
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetdWire

/// Where performed actions wait and go (DESIGN §13): the providers' `WatchActions`
/// streams, the actions held for an unlock (one per host connection), the widgets
/// whose provider has not yet answered an action, and the bounds that keep a flooding
/// host from slowing anyone else.
///
/// Only state and its rules: ``TimelineService`` decides what a host may perform (from
/// the presentation its surface shows) and calls in here. Nothing about actions is
/// written to disk; a restart forgets all of it. Loop only.
final class ActionDesk {
    /// A provider's `WatchActions` stream.
    struct Watcher {
        let context: CallContext
        /// The providers it hears about; nil: every provider (an administrator's, unnamed).
        let providers: Set<String>?

        func wants(_ widget: WidgetID) -> Bool { providers?.contains(widget.provider) ?? true }
    }

    /// An action performed while it needed an unlock: it waits for one.
    final class Held {
        let context: CallContext
        let widget: WidgetID
        let surface: Surface
        let action: String
        /// When it expires, on the monotonic clock.
        let deadline: MonotonicInstant
        /// Its expiry timer, cancelled when it ends another way.
        var timer: ScheduledTimer?
        /// It waits for its provider to start and watch (`Unit=`), not for an unlock.
        var awaitsProvider = false

        init(context: CallContext, widget: WidgetID, surface: Surface, action: String, deadline: MonotonicInstant) {
            self.context = context
            self.widget = widget
            self.surface = surface
            self.action = action
            self.deadline = deadline
        }
    }

    /// Most actions one host connection may perform in ``window`` seconds; more is
    /// `TryAgainLater`. A person taps a few times a second at most.
    static let maxPerConnection = 16
    /// Most actions delivered to one provider and not yet answered by a new timeline
    /// of their widget: a provider that stops answering stops receiving.
    static let maxUnansweredPerProvider = 64
    /// The span the per-connection bound counts over, in seconds (monotonic).
    static let window: Double = 1

    private(set) var watchers: [Watcher] = []
    /// Held actions, by the host connection that performed them.
    private(set) var held: [ConnectionID: Held] = [:]
    /// Widgets with an action delivered and no new timeline since, and how many: presented
    /// `invalidated`, as iOS 17 shows a widget whose intent is running.
    private var awaiting: [WidgetID: Int] = [:]
    /// Deliveries not yet answered, by provider: the sum of its widgets' in `awaiting`.
    private var unanswered: [String: Int] = [:]
    /// Each host connection's recent actions, as monotonic instants.
    private var recent: [ConnectionID: [MonotonicInstant]] = [:]
    /// The last delivery's number: each delivery's `id`.
    private var lastDelivery: UInt64 = 0
    /// Where the next delivery of each provider starts looking, so that several
    /// watching connections share the work.
    private var turn = 0

    /// A new `WatchActions` stream.
    func add(_ watcher: Watcher) { watchers.append(watcher) }

    /// The open watcher that should get an action of `widget`, or nil when none watches.
    /// Several connections of one provider take turns.
    func watcher(for widget: WidgetID) -> Watcher? {
        let open = watchers.filter { $0.context.isOpen && $0.wants(widget) }
        guard !open.isEmpty else { return nil }
        turn &+= 1
        return open[turn % open.count]
    }

    /// Whether `connection` may perform one more action at `now`; records it if so.
    /// Returns the seconds to wait otherwise.
    func admit(_ connection: ConnectionID, at now: MonotonicInstant) -> Double? {
        var times = recent[connection, default: []].filter { now.timeIntervalSince($0) < Self.window }
        if times.count >= Self.maxPerConnection {
            let wait = Self.window - now.timeIntervalSince(times[0])
            recent[connection] = times
            return max(wait, 0.001)
        }
        times.append(now)
        recent[connection] = times
        return nil
    }

    /// Whether `provider` has room for one more delivery.
    func providerHasRoom(_ provider: String) -> Bool {
        unanswered[provider, default: 0] < Self.maxUnansweredPerProvider
    }

    /// Numbers a delivery of `widget` and records it as unanswered.
    func delivered(_ widget: WidgetID) -> UInt64 {
        lastDelivery += 1
        unanswered[widget.provider, default: 0] += 1
        awaiting[widget, default: 0] += 1
        return lastDelivery
    }

    /// Whether an action delivered on `widget` waits for its provider's new timeline.
    func isAwaitingTimeline(_ widget: WidgetID) -> Bool { awaiting[widget] != nil }

    /// A new timeline of `widget` (or its deletion) answers every action delivered on it;
    /// returns whether one was awaited, so its presentations change (no longer `invalidated`).
    @discardableResult
    func answered(_ widget: WidgetID) -> Bool {
        guard let count = awaiting.removeValue(forKey: widget) else { return false }
        let left = (unanswered[widget.provider] ?? 0) - count
        unanswered[widget.provider] = left > 0 ? left : nil
        return true
    }

    /// Holds `action` for its connection; returns the one it replaces, which expires.
    func hold(_ action: Held) -> Held? {
        held.updateValue(action, forKey: action.context.connection)
    }

    /// Takes every held action out (an unlock delivers them, a lock or a wipe expires them).
    func takeAllHeld() -> [Held] {
        defer { held.removeAll() }
        return Array(held.values)
    }

    /// Takes out the held actions that wait for `provider` to watch.
    func takeHeld(awaiting provider: String) -> [Held] {
        let taken = held.values.filter { $0.awaitsProvider && $0.widget.provider == provider }
        for action in taken { held[action.context.connection] = nil }
        return taken
    }

    /// Takes out the held actions that wait for an unlock.
    func takeHeldAwaitingUnlock() -> [Held] {
        let taken = held.values.filter { !$0.awaitsProvider }
        for action in taken { held[action.context.connection] = nil }
        return taken
    }

    /// Takes one held action out if it is still held (its timer fired).
    func take(_ action: Held) -> Held? {
        guard held[action.context.connection] === action else { return nil }
        return held.removeValue(forKey: action.context.connection)
    }

    /// A connection closed: its streams, held action and counts go.
    func connectionClosed(_ id: ConnectionID) -> Held? {
        watchers.removeAll { $0.context.connection == id || !$0.context.isOpen }
        recent[id] = nil
        return held.removeValue(forKey: id)
    }

    /// A wipe: nothing of the old store's widgets is awaited any more.
    func forgetAll() {
        awaiting.removeAll()
        unanswered.removeAll()
    }
}
