import FoundationEssentials
import Logging
import Varlink
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetdWire

/// Actions (DESIGN §13): a host performs what its surface shows now, under the action's
/// authentication policy; the widget's provider hears of it through `WatchActions`.
///
/// The rule that makes this safe is the first check of ``performAction(_:_:_:)``: the
/// action must be in the presentation that surface is shown *now*, made by the same
/// rules as `GetPresentation`. A host cannot run a class-A entry's action while the lock
/// screen shows its placeholder, nor a redacted title's action it cannot read.
extension TimelineService {
    /// `Host.PerformAction(widget, surface, action) -> (outcome)`.
    func performAction(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        // `PerformActionParameters`, read without a decoder: this is a tap's way to its provider.
        let parameters = try call.decodedStrings(["widget", "surface", "action"])
        let widget = try widgetID(parameters[0])
        guard let surface = Surface(rawValue: parameters[1]) else { throw .invalidParameter("surface") }
        let clocks = scheduler.clocks
        if let wait = actions.admit(context.connection, at: clocks.monotonic) { throw .tryAgainLater(retryAfter: wait) }

        let presented = try shownAction(parameters[2], of: widget, on: surface)
        let state = store.deviceState
        if PresentationRules.mayRun(presented.authentication, state: state, surface: surface) {
            do {
                try deliver(presented, of: widget, on: surface, performedBy: context)
            } catch .providerUnavailable(let provider) where startProvider(provider) {
                // Started on demand (`Unit=`): held until it watches, as for an unlock.
                return hold(presented.id, of: widget, on: surface, context, at: clocks.monotonic, awaitingProvider: true)
            }
            context.reply(PerformActionReply(outcome: .delivered))
            return
        }
        // A remote surface is another device: nothing there can unlock this one.
        guard surface != .remote else { throw .unavailableOnSurface(surface) }
        hold(presented.id, of: widget, on: surface, context, at: clocks.monotonic)
    }

    /// Asks the user's systemd manager to start `provider`'s `Unit=`, if it has one and
    /// this instance has a manager to ask; at most once per ``unitRestartInterval`` per
    /// unit, so that a provider that fails at start is not started in a loop. Returns
    /// whether the provider may be on its way (asked now or lately).
    @discardableResult
    func startProvider(_ provider: String) -> Bool {
        guard let starter = unitStarter,
            let unit = access.authorization.providers.first(where: { $0.id == provider })?.unit
        else { return false }
        let now = scheduler.clocks.monotonic
        if let last = unitsStarted[unit], now.timeIntervalSince(last) < Self.unitRestartInterval { return true }
        unitsStarted[unit] = now
        starter.start(unit)
        return true
    }

    /// The least time between two starts of one provider's unit, in seconds.
    static let unitRestartInterval: Double = 10

    /// The action `id` as `surface` shows it of `widget` now, or `ActionNotAvailable`:
    /// read from the reply `GetPresentation` would answer from its cache now, when there
    /// is one (``CachedActionScan``), else presented anew.
    private func shownAction(_ id: String, of widget: WidgetID, on surface: Surface) throws(ServiceError) -> PresentedAction {
        if let (reply, _) = responder.reply(widget, surface, now: now) {
            switch reply.withUnsafeBytes({ CachedActionScan.action(id, in: $0) }) {
            case .shown(let action): return action
            case .notShown: throw .actionNotAvailable(id)
            case .unknown: break
            }
        }
        return try presentedAction(id, of: widget, on: surface)
    }

    /// The action `id` as `surface` shows it of `widget` now, or `ActionNotAvailable`.
    private func presentedAction(_ id: String, of widget: WidgetID, on surface: Surface) throws(ServiceError) -> PresentedAction {
        let (presentation, _, _) = try presentation(of: widget, on: surface)
        guard let action = presentation.actions.first(where: { $0.id == id }) else { throw .actionNotAvailable(id) }
        return action
    }

    /// Sends a performed action to one watching connection of its provider.
    private func deliver(
        _ action: PresentedAction, of widget: WidgetID, on surface: Surface, performedBy host: CallContext
    ) throws(ServiceError) {
        guard let watcher = actions.watcher(for: widget) else { throw .providerUnavailable(widget.provider) }
        guard actions.providerHasRoom(widget.provider) else { throw .tryAgainLater(retryAfter: 1) }
        let whileLocked = store.deviceState != .unlocked
        let id = actions.delivered(widget)
        // A toggle is performed by flipping what the host showed.
        let isOn = action.kind == .toggle ? !(action.isOn ?? false) : nil
        watcher.context.stream(
            ActionDelivery(
                id: id, widget: widget.description, action: action.id, isOn: isOn, surface: surface.rawValue,
                whileLocked: whileLocked))
        if whileLocked {
            // Who acted on a locked device, and on what; never the title, which may be private.
            host.logger.with("widget.id", "\(widget)").info(
                "action delivered while locked", event: "action_delivered_locked",
                metadata: ["action.id": "\(action.id)", "host.uid": "\(host.peer.uid)"])
        }
        // Its presentations now say `invalidated` until the provider answers.
        responder.forget(widget)
        refreshWatches(widget)
        reschedule()
    }

    /// Holds an action until an unlock within `ActionHoldSec=`; a newer held action of
    /// the same connection replaces it (the old one expires).
    private func hold(
        _ action: String, of widget: WidgetID, on surface: Surface, _ context: CallContext, at now: MonotonicInstant,
        awaitingProvider: Bool = false
    ) {
        let seconds = access.authorization.configuration.actionHoldSeconds
        let held = ActionDesk.Held(
            context: context, widget: widget, surface: surface, action: action, deadline: now.addingTimeInterval(seconds))
        held.awaitsProvider = awaitingProvider
        if let replaced = actions.hold(held) { end(replaced, .expired) }
        held.timer = scheduler.scheduleTimer(at: .monotonic(held.deadline)) { [weak self, weak held] in
            guard let self, let held, let due = actions.take(held) else { return }
            end(due, .expired)
        }
        if context.wantsMore {
            context.stream(PerformActionReply(outcome: .held))
        } else {
            // Without `more` the host hears only this; the action still waits for the unlock.
            context.reply(PerformActionReply(outcome: .held))
        }
    }

    /// Ends a held action with its final outcome (sent only if its host streams).
    private func end(_ held: ActionDesk.Held, _ outcome: ActionOutcome) {
        if let timer = held.timer { scheduler.cancelTimer(timer) }
        guard held.context.isOpen, held.context.wantsMore else { return }
        held.context.reply(PerformActionReply(outcome: outcome))
    }

    /// The device changed: an unlock delivers every held action its surface still shows
    /// (re-checked against the presentation now); a lock or a wipe expires them all.
    func followHeldActions() {
        guard !actions.held.isEmpty else { return }
        switch store.deviceState {
        case .unlocked:
            for held in actions.takeHeldAwaitingUnlock() { retry(held) }
        case .locked, .beforeFirstUnlock:
            break
        }
    }

    /// Tries a held action again now that what it waited for came (an unlock, or its
    /// provider watching): delivered if the surface still shows it and its policy lets
    /// it run now; held again for what it still waits for (the unlock, or a provider
    /// started on demand), with the same deadline; expired otherwise.
    private func retry(_ held: ActionDesk.Held) {
        do throws(ServiceError) {
            let presented = try presentedAction(held.action, of: held.widget, on: held.surface)
            guard PresentationRules.mayRun(presented.authentication, state: store.deviceState, surface: held.surface) else {
                held.awaitsProvider = false
                if let replaced = actions.hold(held) { end(replaced, .expired) }
                return
            }
            do {
                try deliver(presented, of: held.widget, on: held.surface, performedBy: held.context)
            } catch .providerUnavailable(let provider) where startProvider(provider) {
                held.awaitsProvider = true
                if let replaced = actions.hold(held) { end(replaced, .expired) }
                return
            }
            end(held, .delivered)
        } catch .actionNotAvailable {
            end(held, .expired)
        } catch {
            if let timer = held.timer { scheduler.cancelTimer(timer) }
            if held.context.isOpen, held.context.wantsMore {
                held.context.fail(with: error, method: WidgetdMethod.performAction.fullName)
            }
        }
    }

    /// A lock, a wipe or a stop: every held action expires (DESIGN §13).
    func expireHeldActions() {
        for held in actions.takeAllHeld() { end(held, .expired) }
    }

    /// `Provider.WatchActions(provider?)`: a provider's stream of performed actions.
    func watchActions(_ call: VarlinkCall, _ context: CallContext, _ authority: PeerAuthority) throws(ServiceError) {
        guard context.wantsMore else { throw .varlink(.expectedMore) }
        let parameters = try call.decodedParameters(WatchActionsParameters.self)
        var providers: Set<String>? = authority.isAdmin ? nil : authority.providers
        if let named = parameters.provider {
            guard WidgetID.isValidProviderID(named) else { throw .invalidParameter("provider") }
            guard authority.isAdmin || authority.providers.contains(named) else {
                throw .permissionDenied(provider: named, user: nil, group: nil)
            }
            providers = [named]
        }
        actions.add(ActionDesk.Watcher(context: context, providers: providers))
        // A provider started on demand: the actions that waited for it are delivered now.
        for provider in providers ?? Set(actions.held.values.map(\.widget.provider)) {
            for held in actions.takeHeld(awaiting: provider) { retry(held) }
        }
    }

    /// A new timeline of `widget`, or its deletion, answers the actions performed on it.
    func actionsAnswered(_ widget: WidgetID) {
        if actions.answered(widget) { responder.forget(widget) }
    }
}
