import FoundationEssentials
import Logging
import SecureMemory
import Varlink
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// The io.widgetd.* methods: the store and the presentation rules behind Varlink.
///
/// Owned parts, one concept each: dispatch reads ``MethodTable``; every change of keys,
/// settings or configuration goes through ``apply(_:)`` (DeviceChanges.swift); the
/// ``PasscodeQueue``, the ``GroupCommitter``, the ``PresentationResponder``, the
/// ``WakeScheduler``, the ``Subscriptions``, the ``BackgroundIndex`` (with its waiting
/// calls) and the ``SettingsFile`` hold their own state.
///
/// Threading: everything runs on the scheduler's loop thread, except the passcode KDF
/// and a group commit's sealing, which run off it and hand their result back through
/// ``Scheduling/execute(_:)``. The store is therefore only ever touched from the loop.
final class WidgetService: VarlinkCallHandler {
    let scheduler: any Scheduling
    let store: TimelineStore
    var authorization: Authorization
    var logger: Logger
    /// Timeline limits for validation of provider input.
    var limits: TimelineLimits

    /// Where `settings` are kept: the store's settings file.
    let settingsFile: SettingsFile
    /// The user's settings, mirrored from the store's settings file; the most
    /// restrictive ones while that file cannot be read (`settingsUnreadable`).
    var settings: Settings
    /// Whether `settings` stand in for a settings file that could not be read, until
    /// an administrator's `SetSettings` (or a wipe) writes a new one.
    var settingsUnreadable = false
    /// Why the device is locked (`nil` while unlocked): the reason of the last lock.
    var lockedBy: LockReason?
    /// Whether `memory_not_locked` was logged: once per run, when it is first seen.
    var reportedMemoryNotLocked = false
    /// Whether some secure memory could not be locked (`LockedMemory`), for `GetStatus`.
    var memoryNotLocked: Bool { LockedMemory.hasFailed }
    /// Authority per open connection, computed once at its first call.
    var authorities: [ConnectionID: PeerAuthority] = [:]
    /// Open streams: `Watch`, `WatchReloads`, `Monitor`.
    var subscriptions = Subscriptions()
    /// When each stored timeline's reload falls due, and which were announced.
    let reloads: ReloadSchedule
    /// Unlock and SetPasscode calls, one at a time.
    let passcodes: PasscodeQueue
    /// Whether the passcode is in step with the login password (DESIGN §8).
    let passcodeStep: PasscodeStep
    /// PutTimeline calls accepted, committed together.
    let committer: GroupCommitter
    /// Cached `GetPresentation` replies and the memory of requests that reach them.
    var responder: PresentationResponder
    /// The one loop timer for the next thing that changes by itself.
    let wake: WakeScheduler
    /// The store's metadata index, filled in slices, and the calls waiting for it.
    let index: BackgroundIndex

    /// Drops (zeroed) the unsent replies holding content its reader may no longer read,
    /// and closes their connections: the server's, set by the daemon (see
    /// ``dropUnreadableOutput()``). Nothing by default, for tests without a server.
    var dropUnsentOutput: (_ unreadable: (any OutputTag) -> Bool) -> Void = { _ in }
    /// The logind sessions followed, for `GetStatus`; `nil` when none are (set by the daemon).
    var watchedSessions: () -> [String]? = { nil }

    /// The scheduler's time now: the one clock of every rule the service applies.
    var now: Date { scheduler.now }

    init(
        scheduler: any Scheduling, store: TimelineStore, authorization: Authorization, limits: TimelineLimits,
        logger: Logger
    ) throws {
        self.scheduler = scheduler
        self.store = store
        self.authorization = authorization
        self.limits = limits
        self.logger = logger
        reloads = ReloadSchedule(store: store)
        passcodes = PasscodeQueue(scheduler: scheduler)
        committer = GroupCommitter(store: store, scheduler: scheduler)
        wake = WakeScheduler(scheduler: scheduler)
        index = BackgroundIndex(store: store, scheduler: scheduler, logger: logger)
        store.refusedEntry = { [logger] error in
            logger.warning("timeline entry refused, skipped", event: "entry_refused", error: error)
        }
        settingsFile = SettingsFile(store: store, logger: logger)
        (settings, settingsUnreadable) = settingsFile.load()
        passcodeStep = PasscodeStep(store: store, logger: logger)
        responder = PresentationResponder(
            limit: store.configuration.maxCachedTimelines, stamp: Self.presentationStamp(of: store, settings: settings))
        lockedBy = store.deviceState == .unlocked ? nil : .start
        passcodes.finish = { [unowned self] request, outcome in finishPasscodeRequest(request, outcome) }
        passcodes.refuse = { [unowned self] request, error in fail(request.context, with: .store(error), method: request.method) }
        committer.answer = { [unowned self] batch, results in answer(batch, results) }
        wake.wake = { [unowned self] in tick() }
        scheduler.onWallClockSet { [weak self] in self?.wallClockWasSet() }
        // Calls that need every timeline (ListWidgets, ReloadTimelines, a write under a
        // quota) wait for the background index: `whenIndexed`.
        index.found = { [unowned self] found in indexed(found) }
        index.answer = { [unowned self] waiters in answerIndexWaiters(waiters) }
        index.refuse = { [unowned self] waiter, error in fail(waiter.context, with: .store(error), method: waiter.method) }
        index.start()
        reschedule()
        // The keys allocated while opening the store may have hit the limit already.
        reportMemoryNotLocked()
    }

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

    /// What a slice of the background index found: the due reloads among it are
    /// announced, and the wake timer re-armed for an earlier one.
    private func indexed(_ found: [TimelineMetadata]) {
        let now = self.now
        for metadata in found {
            guard let due = metadata.reloadDue else { continue }
            if due <= now {
                if announce(ReloadRequest(widget: metadata.widget.description, reason: .due)) {
                    reloads.announced(metadata.widget)
                }
            } else if wake.date.map({ due < $0 }) ?? true {
                reschedule()
            }
        }
    }

    /// Runs `work` (given the caller's authority) once every stored timeline is indexed:
    /// now if it is, otherwise when the background index completes, without holding the
    /// loop meanwhile (a million timelines took it about 70 s). Throws `TryAgainLater`
    /// when ``IndexWaiters/limit`` calls wait already.
    func whenIndexed(
        _ context: CallContext, method: String, _ work: @escaping (PeerAuthority) throws(ServiceError) -> Void
    ) throws(ServiceError) {
        if index.isComplete { return try work(authority(for: context.connection, peer: context.peer)) }
        try index.wait(IndexWaiters.Waiter(context: context, method: method, work: work))
    }

    /// Answers the calls that waited for the index, in the order they came, each under
    /// the authorization, keys and settings in force now (a Lock or a configuration
    /// reload that came while they waited applies to them).
    private func answerIndexWaiters(_ waiters: [IndexWaiters.Waiter]) {
        for waiter in waiters where waiter.context.isOpen {
            let authority = authority(for: waiter.context)
            guard authorization.permits(authority, method: waiter.method) else {
                deny(waiter.method, context: waiter.context)
                continue
            }
            // As in `handle`: a waiting call sees the writes accepted before it committed
            // (an AppendEntries behind a PutTimeline of the same widget builds on it).
            if MethodTable.row(waiter.method)?.commitsAcceptedWritesFirst ?? true, committer.hasUnansweredWrites {
                committer.commitAll()
            }
            do throws(ServiceError) { try waiter.work(authority) } catch { fail(waiter.context, with: error, method: waiter.method) }
        }
        reportMemoryNotLocked()
    }

    // MARK: Dispatch

    func handle(_ call: VarlinkCall, context: CallContext) {
        let authority = authority(for: context)
        guard let row = MethodTable.row(call.method) else {
            // Not an io.widgetd method: only an administrator learns that it does not exist.
            guard authority.isAdmin else { return deny(call.method, context: context) }
            let known = WidgetdInterface(rawValue: call.interface) != nil
            return context.fail(known ? .methodNotFound(call.method) : .interfaceNotFound(call.interface))
        }
        // Every other call sees the accepted writes committed, exactly as if each had
        // been committed on its own before it.
        if row.commitsAcceptedWritesFirst, committer.hasUnansweredWrites { committer.commitAll() }
        guard authorization.permits(authority, role: row.role) else { return deny(call.method, context: context) }
        do throws(ServiceError) { try row.handle(self, call, context, authority) } catch {
            fail(context, with: error, method: call.method)
        }
        reportMemoryNotLocked()
    }

    /// Commits every accepted write now and answers each (a stop goes through here).
    func commitPendingWrites() { committer.commitAll() }

    func connectionClosed(_ id: ConnectionID) {
        authorities[id] = nil
        subscriptions.remove(connection: id)
        passcodes.removeRequests(of: id)
        index.remove(connection: id)
    }

    private func authority(for context: CallContext) -> PeerAuthority {
        authority(for: context.connection, peer: context.peer)
    }

    func authority(for connection: ConnectionID, peer: PeerCredentials) -> PeerAuthority {
        if let known = authorities[connection] { return known }
        let authority = authorization.authority(of: peer)
        authorities[connection] = authority
        return authority
    }

    /// Logs a denial and answers `PermissionDenied`.
    func deny(
        _ method: String, context: CallContext, widget: String? = nil,
        error: ServiceError = .permissionDenied(provider: nil, user: nil, group: nil)
    ) {
        let logger = widget.map { context.logger.with("widget.id", $0) } ?? context.logger
        logger.notice("permission denied", event: "permission_denied", metadata: ["method": method])
        context.fail(error.varlinkError)
    }

    /// Answers a call with the error its method threw, logging the ones an administrator
    /// must see through the call's logger: a store failure the client cannot act on
    /// (corruption, I/O), and an unexpected error (by its type only).
    func fail(_ context: CallContext, with error: ServiceError, method: String) {
        switch error {
        case .store(let failure) where ServiceError.answering(failure) == nil:
            context.logger.error("store failure", event: "store_failure", error: failure, metadata: ["method": method])
        case .unexpected(let type):
            context.logger.error("method failed", event: "method_failed", error: type, metadata: ["method": method])
        default:
            break
        }
        context.fail(error.varlinkError)
    }

    /// Drops (zeroed) the unsent output of every connection holding a reply its reader
    /// may no longer read, and closes those connections: class A once its key is purged
    /// (after the lock's grace period), class B once its key is purged unless the reader
    /// is the provider of a timeline still open (DESIGN §3), C and D when their key goes.
    func dropUnreadableOutput() {
        dropUnsentOutput { [store] tag in
            // Only ReplyProtection marks this service's replies: any other tag is unreadable.
            guard let protection = tag as? ReplyProtection else { return true }
            return switch protection.protectionClass {
            case .completeUnlessOpen:
                !store.isKeyAvailable(.completeUnlessOpen) && !(protection.openTimeline.map(store.isOpen) ?? false)
            case .complete, .completeUntilFirstUserAuthentication, .none:
                !store.isKeyAvailable(protection.protectionClass)
            }
        }
    }

    /// Parses a widget id parameter.
    func widgetID(_ text: String) throws(ServiceError) -> WidgetID {
        do { return try WidgetID(text) } catch { throw .invalidParameter("widget") }
    }
}
