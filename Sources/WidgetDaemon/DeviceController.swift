import FoundationEssentials
import Logging
import SecureMemory
import Varlink
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// The device side of the service: io.widgetd.Device's handlers (state, passcodes,
/// settings) and every change of keys, settings or configuration, through
/// ``apply(_:answer:)``. It owns the keys side of the store, the ``StoredSettings``, the
/// ``PasscodeQueue``, the ``PasscodeStep``, the monitors and the timers of its key
/// deadlines (``keyTimers``); what the timeline side must do when the device changes it
/// hears through its ``DeviceChangeFollower``.
///
/// Threading: on the scheduler's loop thread, except the passcode KDF, which runs off
/// it and hands its result back through ``Scheduling/execute(_:)``.
final class DeviceController {
    let scheduler: any Scheduling
    let store: any StoreDeviceFace
    let access: AccessControl
    let logger: Logger

    /// Where `settings` are kept: the store's settings file.
    let storedSettings: StoredSettings
    /// The user's settings, mirrored from the store's settings file; the most
    /// restrictive ones while that file cannot be read (`settingsUnreadable`).
    private(set) var settings: Settings
    /// Whether `settings` stand in for a settings file that could not be read, until
    /// an administrator's `SetSettings` (or a wipe) writes a new one.
    private(set) var settingsUnreadable = false
    /// Why the device is locked (`nil` while unlocked): the reason of the last lock.
    private(set) var lockedBy: LockReason?
    /// Whether `memory_not_locked` was logged: once per run, when it is first seen.
    private var reportedMemoryNotLocked = false
    /// Whether some secure memory could not be locked (`LockedMemory`), for `GetStatus`.
    var memoryNotLocked: Bool { LockedMemory.hasFailed }
    /// Open `Monitor` streams.
    private(set) var monitors: [CallContext] = []
    /// Unlock and SetPasscode calls, one at a time.
    let passcodes: PasscodeQueue
    /// The keybag, settings and wipe writes, one at a time, synced off the loop.
    let writes: DeviceWrites
    /// Whether the passcode is in step with the login password (DESIGN §8).
    let passcodeStep: PasscodeStep
    /// The loop timers of the key deadlines it runs: the class-A purge and the
    /// inactivity restart (``applyDueKeyChanges(at:)``), re-armed after every change.
    let keyTimers: WakeScheduler

    /// The timeline side, told of each change (set once, by ``WidgetService``).
    weak var follower: (any DeviceChangeFollower)?
    /// Who follows the logind sessions, asked which it watches for `GetStatus` and
    /// `Monitor` (the daemon's ``SessionMonitor``, which it owns and replaces on a reload;
    /// hence weak); `nil`: none are followed.
    weak var sessionFollower: (any SessionFollower)?

    init(scheduler: any Scheduling, store: any StoreDeviceFace, access: AccessControl, logger: Logger) {
        self.scheduler = scheduler
        self.store = store
        self.access = access
        self.logger = logger
        passcodes = PasscodeQueue(scheduler: scheduler)
        writes = DeviceWrites(scheduler: scheduler)
        storedSettings = StoredSettings(store: store, logger: logger)
        (settings, settingsUnreadable) = storedSettings.load()
        passcodeStep = PasscodeStep(store: store, logger: logger)
        keyTimers = WakeScheduler(scheduler: scheduler)
        lockedBy = store.deviceState == .unlocked ? nil : .start
        passcodes.finish = { [unowned self] request, outcome, done in
            let derived: DerivedRequest
            switch outcome {
            case .success(let value): derived = value
            case .failure(let error):
                answer(request) { () throws(ServiceError) in throw .store(error) }
                return done()
            }
            // A derived change comes between the accepted writes, in order: parked (not
            // waited for on the loop) until those accepted before it are durable, then
            // until the device's writes before it are.
            let afterCommits = follower?.whenAcceptedWritesCommitted ?? { $0() }
            afterCommits { [unowned self] in
                writes.take { [unowned self] turnDone in
                    finishPasscodeRequest(request, derived) {
                        turnDone()
                        done()
                    }
                }
            }
        }
        passcodes.refuse = { request, error in request.context.fail(with: .store(error), method: request.method) }
        keyTimers.delegate = self
    }

    /// Arms the key timers for the store as opened.
    func start() { armKeyTimers() }

    /// Logs, once, that secure memory could not be locked, as soon as it is seen: at
    /// start and after every call (one atomic load), so within the call that hit it.
    func reportMemoryNotLocked() {
        guard !reportedMemoryNotLocked, LockedMemory.hasFailed else { return }
        reportedMemoryNotLocked = true
        let caching = store.configuration.requireLockedMemory
            ? "decrypted timelines are not cached (RequireLockedMemory=yes)"
            : "decrypted timelines are cached anyway (RequireLockedMemory=no)"
        logger.warning(
            "secure memory could not be locked, so it may be swapped out; \(caching); raise LimitMEMLOCK= (RLIMIT_MEMLOCK)",
            event: "memory_not_locked",
            metadata: ["memlock_limit": ProcessHygiene.lockedMemoryLimit().map { "\($0)" } ?? "unlimited"])
    }

    /// A connection closed: its monitors and queued passcode requests go.
    func connectionClosed(_ id: ConnectionID) {
        monitors.removeAll { $0.connection == id || !$0.isOpen }
        passcodes.removeRequests(of: id)
    }

    /// Runs the key changes due at `clocks`: the purges (class A after its grace period)
    /// and the inactivity restart of `RequirePasscodeAfterSec=`; each re-arms the key
    /// timers. Called when a key timer fires, and by the timeline side's wake-up before
    /// it presents (a key timer due in the same turn, on another clock, may not have
    /// fired yet). A device change only when one is due: a wake-up for an entry date or
    /// a reload must not commit the writes gathering for the next group commit.
    func applyDueKeyChanges(at clocks: ClockReading) {
        // Running due purges makes no store change that can fail.
        if let due = store.nextDeadline, due <= clocks.monotonic { try? apply(.purgeDue) }
        if let due = store.requirePasscodeDue, due <= clocks.boottime { try? apply(.lock(.inactivity)) }
    }

    /// The one entry point of every device change: applies the writes already answered
    /// (a wipe first commits every accepted write: it is parked until they are, so that
    /// there are rarely any left), changes the store, zeroes the cached presentations and
    /// unsent replies the new state no longer allows, runs `answer` (the call's reply, so
    /// that it goes before what monitors and watches hear, as a `Lock`'s reply always
    /// has), publishes the events, re-arms the key timers, and has the follower
    /// re-present the watches and re-arm its date timer. Throws what the store refused (a
    /// wrong passcode, an interrupted unlock, a wipe after failed attempts, which is
    /// applied before it is thrown) without running `answer`: the caller fails its call.
    ///
    /// No other change waits for a commit, so that a slow disk holds no peer's call: a
    /// write not yet prepared is sealed under the state it is prepared in (public keys
    /// only; the cache rules are judged when it is applied), and a running one under the
    /// state it was prepared in (its copies of the class wrap keys are zeroed once it is
    /// sealed, before its journal sync). An unlock and a passcode change, which may
    /// replace the keybag or wipe, are parked before this until the writes before them
    /// are durable (`PasscodeQueue.finish`), and their keybag and new settings are written
    /// off the loop before it (``DeviceWrites``).
    func apply(_ change: DeviceChange, answer: () -> Void = {}) throws(ServiceError) {
        if case .wipe = change { follower?.commitAcceptedWrites() } else { follower?.applyAnsweredWrites() }
        let published: [DeviceEvent.Kind]
        do throws(ServiceError) {
            published = try make(change)
        } catch .store(.wiped) {
            // Wiped after too many failed attempts: a new store, as after `Wipe`.
            follower?.forgetPresentations()
            settingsWereWiped()
            settle(publishing: [.settings, .state], answer: {})
            throw .store(.wiped)
        } catch {
            settle(publishing: [], answer: {})
            throw error
        }
        settle(publishing: published, answer: answer)
    }

    /// Makes the change in the store and the controller's own state; returns the kinds
    /// of events it publishes.
    private func make(_ change: DeviceChange) throws(ServiceError) -> [DeviceEvent.Kind] {
        let now = scheduler.clocks
        let before = (state: store.deviceState, passcodeSet: store.passcodeSet)
        switch change {
        case .lock(.inactivity):
            // Locked for `RequirePasscodeAfterSec=`: class C goes too, before-first-unlock again.
            store.requirePasscode()
            follower?.deviceLocked()
            guard store.deviceState != before.state else { return [] }
            lockedBy = .inactivity
            return [.state]
        case .lock(let reason):
            // Before sleep, classes A and B go at once (DESIGN §8).
            store.lock(now: now, purgeAtOnce: reason == .sleep)
            follower?.deviceLocked()
            // The lock that ended the unlocked state says why; later ones change nothing.
            if before.state == .unlocked { lockedBy = reason }
            return [.state]
        case .passcode(let judgement, let written):
            try ServiceError.fromStore { () throws(StoreError) in try store.complete(judgement, written: written, now: now) }
            return [.state]
        case .purgeDue:
            store.advance(to: now)
            return before.state != store.deviceState || before.passcodeSet != store.passcodeSet ? [.state] : []
        case .wipe:
            follower?.forgetPresentations()
            try ServiceError.fromStore { () throws(StoreError) in try store.wipe() }
            settingsWereWiped()
            return [.settings, .state]
        case .settings(let new):
            settings = new
            settingsUnreadable = false
            return [.settings]
        case .configuration(let authorization, let storeConfiguration):
            store.configuration = storeConfiguration
            access.replace(authorization)
            follower?.configurationReplaced()
            return []
        }
    }

    /// What follows every change: the presentation stamp (the only place it changes),
    /// the call's answer, events, the key timers, then the follower's watches and dates.
    private func settle(publishing published: [DeviceEvent.Kind], answer: () -> Void) {
        if store.deviceState == .unlocked { lockedBy = nil }
        follower?.presentationStampChanged(to: presentationStamp)
        answer()
        for kind in published { publishDeviceEvent(kind) }
        armKeyTimers()
        follower?.deviceChanged(publishedEvents: !published.isEmpty)
    }

    /// Arms the key timers for the store's key deadlines: the class-A purge (monotonic)
    /// and the inactivity restart (boot time); none for a deadline not running.
    private func armKeyTimers() {
        keyTimers.reschedule(purge: store.nextDeadline, inactivity: store.requirePasscodeDue)
    }

    /// After a wipe the store is a new one: its settings are a new store's defaults,
    /// in memory and on disk, and no reply holding content may still reach anyone.
    private func settingsWereWiped() {
        follower?.storeWiped()
        settings = Settings()
        settingsUnreadable = false
        storedSettings.saveDefaults()
    }

    /// The key state and settings a presentation depends on, besides its timeline and the
    /// time, computed from the store.
    var presentationStamp: PresentationCache.Stamp {
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
            lockedBy: lockedBy?.rawValue, passcodeInStep: passcodeStep.inStep, sessions: sessionFollower?.watchedSessions)
    }

    /// Sends every open monitor the event of `kind`.
    func publishDeviceEvent(_ kind: DeviceEvent.Kind) {
        let reply = DeviceEventReply(event: deviceEvent(kind))
        for monitor in monitors where monitor.isOpen { monitor.stream(reply) }
    }

    func monitor(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let event = deviceEvent(.state)
        guard context.wantsMore else { return context.reply(DeviceEventReply(event: event)) }
        context.stream(DeviceEventReply(event: event))
        monitors.append(context)
    }
}

extension DeviceController: DeviceStateView {}

/// What the timeline side does when the device changes, in the order
/// ``DeviceController/apply(_:answer:)`` calls it: the answered writes are applied (before
/// a wipe, every accepted write commits); a
/// wipe or a new configuration voids the cached presentations; a new key state or new
/// settings (the presentation stamp) drops what may no longer be read; after the call's
/// answer and the monitors' events, an unlock, a lock or new settings re-present the
/// watches (unlocked content, or redacted), and the timeline side's date timer is re-armed
/// (the device has re-armed its key timers).
protocol DeviceChangeFollower: AnyObject {
    /// Before a wipe: every accepted write commits first, waited for (a stop too).
    func commitAcceptedWrites()
    /// Before any other change: the writes already answered are applied (no wait, no sync).
    func applyAnsweredWrites()
    /// Runs `body` once the writes accepted before now are durable and applied, without
    /// holding the loop meanwhile (an unlock, a passcode change: `GroupCommitter.whenCommitted`).
    func whenAcceptedWritesCommitted(_ body: @escaping () -> Void)
    /// The store is about to be wiped: no cached presentation holds.
    func forgetPresentations()
    /// The store was wiped: no reply holding content may still reach anyone.
    func storeWiped()
    /// A reloaded configuration: permits and cached presentations go (a registration
    /// decides a widget's class when it has no timeline yet).
    func configurationReplaced()
    /// The key state and settings presentations depend on now: replies made under
    /// another stamp go, and unsent replies their readers may no longer read are dropped.
    func presentationStampChanged(to stamp: PresentationCache.Stamp)
    /// A lock (of any reason, the device locked already or not): what waited for an
    /// unlock expires (held actions, DESIGN §13).
    func deviceLocked()
    /// The change is answered and published: watches are re-presented if it published
    /// events, and the date timer is re-armed (their next changes moved).
    func deviceChanged(publishedEvents: Bool)
}

/// The device's key timers wake it when a key deadline falls due.
extension DeviceController: WakeSchedulerDelegate {
    /// A key timer fired: the purge or inactivity restart due runs, and the key timers
    /// are re-armed for what is left (no change was due if the timeline side's wake-up
    /// ran it first).
    func wakeUp() {
        applyDueKeyChanges(at: scheduler.clocks)
        armKeyTimers()
    }
}
