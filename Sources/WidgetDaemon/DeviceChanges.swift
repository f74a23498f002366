import FoundationEssentials
import Logging
import WidgetModel
import WidgetStore
import WidgetdWire

/// Why the device is locked (DESIGN §8, `lockedBy`): the source of the last lock.
enum LockReason: String, Sendable, CaseIterable, Encodable {
    /// A client's `Device.Lock`.
    case client
    /// The session was locked (logind `Lock`, `LockedHint`).
    case session
    /// The machine is going to sleep (logind `PrepareForSleep`).
    case sleep
    /// The last watched session ended.
    case sessionEnd
    /// Locked for `RequirePasscodeAfterSec=`: before-first-unlock again.
    case inactivity
    /// Nobody unlocked since widgetd started.
    case start
}

/// A change of the device's keys, settings or configuration. Every source (a Varlink
/// call, the wake timer, the passcode queue, a reload; later logind and the inactivity
/// timer) hands one to ``WidgetService/apply(_:)``, so that what must follow a change is
/// written once.
enum DeviceChange: @unchecked Sendable {
    /// Lock now, for `reason` (class B purged now, A after its grace period). For
    /// `inactivity` (the wake timer, `RequirePasscodeAfterSec=` after the lock): classes A,
    /// B and C purged, `beforeFirstUnlock` again.
    case lock(LockReason)
    /// A passcode verified off the loop (its keys, in secure memory): release A, B, C.
    case unlock(DerivedPasscode)
    /// A passcode set, changed or removed, derived off the loop.
    case passcodeChange(DerivedPasscodeChange)
    /// The wake timer: run the purges due by now (class A after its grace period).
    case purgeDue
    /// Crypto-erase every class.
    case wipe
    /// New settings, validated.
    case settings(Settings)
    /// A reloaded configuration: roles, registrations, the store's share.
    case configuration(Authorization, StoreConfiguration)
}

extension WidgetService {
    /// The one entry point of every device change: commits the accepted writes (so they
    /// land under the state they were accepted in), changes the store, zeroes the cached
    /// presentations and unsent replies the new state no longer allows, runs `answer`
    /// (the call's reply, so that it goes before what monitors and watches hear, as a
    /// `Lock`'s reply always has), publishes the events, re-presents the watches and
    /// re-arms the wake timer. Throws what the store refused (a wrong passcode, an
    /// interrupted unlock, a wipe after failed attempts, which is applied before it is
    /// thrown) without running `answer`: the caller fails its call.
    func apply(_ change: DeviceChange, answer: () -> Void = {}) throws(ServiceError) {
        committer.commitAll()
        let published: [DeviceEvent.Kind]
        do throws(ServiceError) {
            published = try make(change)
        } catch .store(.wiped) {
            // Wiped after too many failed attempts: a new store, as after `Wipe`.
            responder.forgetAll()
            settingsWereWiped()
            settle(publishing: [.settings, .state], answer: {})
            throw .store(.wiped)
        } catch {
            settle(publishing: [], answer: {})
            throw error
        }
        settle(publishing: published, answer: answer)
    }

    /// Makes the change in the store and the service's own state; returns the kinds of
    /// events it publishes.
    private func make(_ change: DeviceChange) throws(ServiceError) -> [DeviceEvent.Kind] {
        let now = scheduler.clocks
        let before = (state: store.deviceState, passcodeSet: store.passcodeSet)
        switch change {
        case .lock(.inactivity):
            // Locked for `RequirePasscodeAfterSec=`: class C goes too, before-first-unlock again.
            store.requirePasscode()
            guard store.deviceState != before.state else { return [] }
            lockedBy = .inactivity
            return [.state]
        case .lock(let reason):
            // Before sleep, classes A and B go at once (DESIGN §8).
            store.lock(now: now, purgeAtOnce: reason == .sleep)
            // The lock that ended the unlocked state says why; later ones change nothing.
            if before.state == .unlocked { lockedBy = reason }
            return [.state]
        case .unlock(let derived):
            try ServiceError.fromStore { () throws(StoreError) in try store.finishUnlock(derived, now: now) }
            return [.state]
        case .passcodeChange(let derived):
            try ServiceError.fromStore { () throws(StoreError) in try store.finishSetPasscode(derived, now: now) }
            return [.state]
        case .purgeDue:
            store.advance(to: now)
            return before.state != store.deviceState || before.passcodeSet != store.passcodeSet ? [.state] : []
        case .wipe:
            responder.forgetAll()
            try ServiceError.fromStore { () throws(StoreError) in try store.wipe() }
            settingsWereWiped()
            return [.settings, .state]
        case .settings(let new):
            // Saved even if unchanged while unreadable: setting them is what ends the restriction.
            if new != settings || settingsUnreadable {
                try settingsFile.save(new)
                settings = new
                settingsUnreadable = false
            }
            return [.settings]
        case .configuration(let authorization, let storeConfiguration):
            store.configuration = storeConfiguration
            self.authorization = authorization
            authorities.removeAll()
            responder.revokePermits()
            // A registration decides a widget's class when it has no timeline yet.
            responder.forgetAll()
            return []
        }
    }

    /// What follows every change: the presentation stamp (the only place it changes),
    /// the call's answer, events, watches, the wake timer.
    private func settle(publishing published: [DeviceEvent.Kind], answer: () -> Void) {
        if store.deviceState == .unlocked { lockedBy = nil }
        if responder.update(to: currentPresentationStamp()) {
            // A key released or purged: replies waiting in connections follow the same rule.
            dropUnreadableOutput()
        }
        answer()
        for kind in published { publishDeviceEvent(kind) }
        if !published.isEmpty { refreshWatches(nil) }
        reschedule()
    }

    /// After a wipe the store is a new one: its settings are a new store's defaults,
    /// in memory and on disk, and no reply holding content may still reach anyone.
    private func settingsWereWiped() {
        dropUnsentOutput { _ in true }
        settings = Settings()
        settingsUnreadable = false
        settingsFile.saveDefaults()
    }

    /// The key state and settings a presentation depends on, besides its timeline and the
    /// time, computed from the store.
    func currentPresentationStamp() -> PresentationCache.Stamp {
        Self.presentationStamp(of: store, settings: settings)
    }

    /// The stamp of `store`'s key state under `settings`.
    static func presentationStamp(of store: TimelineStore, settings: Settings) -> PresentationCache.Stamp {
        var available: UInt8 = 0
        for (index, c) in ProtectionClass.allCases.enumerated() where store.isKeyAvailable(c) { available |= 1 << index }
        return PresentationCache.Stamp(
            state: store.deviceState, passcodeSet: store.passcodeSet, availableClasses: available, settings: settings)
    }

    // MARK: Events

    /// The event monitors are sent.
    func deviceEvent(_ kind: DeviceEvent.Kind) -> DeviceEvent {
        DeviceEvent(
            kind: kind, state: store.deviceState, passcodeSet: store.passcodeSet, settings: settings,
            lockedBy: lockedBy?.rawValue, passcodeInStep: passcodeStep.inStep, sessions: watchedSessions())
    }

    /// Sends every open monitor the event of `kind`.
    func publishDeviceEvent(_ kind: DeviceEvent.Kind) {
        let reply = DeviceEventReply(event: deviceEvent(kind))
        for monitor in subscriptions.monitors where monitor.isOpen { monitor.stream(reply) }
    }
}
