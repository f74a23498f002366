import FoundationEssentials
import Logging
import SecureMemory
import StoreLedger
import Varlink
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// The timeline side of the service: io.widgetd.Host's and io.widgetd.Provider's
/// handlers, and what the store's timelines show.
///
/// Owned parts, one concept each: the ``GroupCommitter``, the ``PresentationResponder``,
/// the ``WakeScheduler`` of its dates, the ``Subscriptions`` (watches and reload watches), the
/// ``ReloadSchedule`` and the ``BackgroundIndex`` (with its waiting calls) hold their own
/// state. The key state and settings are the ``DeviceController``'s: read here, and
/// changed only through its `apply`, which tells this service as its
/// ``DeviceChangeFollower``.
///
/// Threading: everything runs on the scheduler's loop thread, except a group commit's
/// sealing, which runs off it and hands its result back through
/// ``Scheduling/execute(_:)``. The store is therefore only ever touched from the loop.
final class TimelineService {
    let scheduler: any Scheduling
    let store: any StoreTimelinesFace
    let access: AccessControl
    /// The key state and settings every presentation depends on; nothing of the store.
    unowned let device: any DeviceStateView
    var logger: Logger
    /// Timeline limits for validation of provider input.
    var limits: TimelineLimits

    /// Open streams: `Watch`, `WatchReloads`, `WatchWidgets`.
    var subscriptions = Subscriptions()
    /// Performed actions: the providers' streams, held actions, bounds (DESIGN §13).
    let actions = ActionDesk()
    /// What `WatchWidgets` will say of each accepted write once it is stored.
    var widgetEvents: [WidgetID: WidgetEvent.Kind] = [:]
    /// Who starts a provider's `Unit=` on demand (the user's systemd manager; tests
    /// inject their own); nil: none is started.
    var unitStarter: (any UnitStarter)?
    /// When each unit was last asked for, on the monotonic clock.
    var unitsStarted: [String: MonotonicInstant] = [:]
    /// When each stored timeline's reload falls due, and which were announced.
    let reloads: ReloadSchedule
    /// PutTimeline calls accepted, committed together.
    let committer: GroupCommitter
    /// Writes the canonical bodies the store seals.
    let bodies = CanonicalBodyEncoder()
    /// Cached `GetPresentation` replies and the memory of requests that reach them.
    var responder: PresentationResponder
    /// The loop timer for the next entry date reached or reload due (the key deadlines
    /// are the device's: ``DeviceController/keyTimers``).
    let wake: WakeScheduler
    /// The store's metadata index, filled in slices, and the calls waiting for it.
    let index: BackgroundIndex
    /// How a refresh pass has the store decrypt the timelines it will show (tests
    /// inject their own, to run it in steps or to see it used).
    var openBodies: TimelineStore.ConcurrentWork = TimelineStore.onTwoThreads
    /// How a refresh pass presents and encodes the content replies it makes together
    /// (tests inject their own, to see it used or to lock midway).
    var presentReplies: TimelineStore.ConcurrentWork = TimelineStore.onTwoThreads

    /// Who holds the unsent replies, told to drop (zeroed) those holding content their
    /// reader may no longer read (``dropUnreadableOutput()``): the server, set by the
    /// daemon, which owns both (hence weak). `nil` for tests without a server: nothing
    /// is dropped.
    weak var unsentOutput: (any UnsentOutputHolder)?

    /// The scheduler's time now: the one clock of every rule the service applies.
    var now: Date { scheduler.now }

    init(
        scheduler: any Scheduling, store: any StoreTimelinesFace, access: AccessControl, device: any DeviceStateView,
        limits: TimelineLimits, logger: Logger
    ) {
        self.scheduler = scheduler
        self.store = store
        self.access = access
        self.device = device
        self.limits = limits
        self.logger = logger
        reloads = ReloadSchedule(store: store)
        committer = GroupCommitter(store: store, scheduler: scheduler)
        wake = WakeScheduler(scheduler: scheduler)
        index = BackgroundIndex(store: store, scheduler: scheduler, logger: logger)
        responder = PresentationResponder(limit: store.configuration.maxCachedTimelines, stamp: device.presentationStamp)
        committer.delegate = self
        wake.delegate = self
        scheduler.onWallClockSet { [weak self] in self?.wallClockWasSet() }
        // Calls that need every timeline (ListWidgets, ReloadTimelines, a write under a
        // quota whose usage the store does not know yet) wait for the background index:
        // `whenIndexed`.
        index.delegate = self
    }

    /// Starts the background index and arms the date timer.
    func start() {
        index.start()
        reschedule()
    }

    /// Runs `work` (given the caller's authority) once every stored timeline is indexed:
    /// now if it is, otherwise when the background index completes, without holding the
    /// loop meanwhile (a million timelines took it about 70 s). Throws `TryAgainLater`
    /// when ``IndexWaiters/limit`` calls wait already.
    func whenIndexed(
        _ context: CallContext, method: String, _ work: @escaping (PeerAuthority) throws(ServiceError) -> Void
    ) throws(ServiceError) {
        if index.isComplete { return try work(access.authority(for: context)) }
        try index.wait(IndexWaiters.Waiter(context: context, method: method, work: work))
    }

    /// Commits every accepted write now and answers each (a stop goes through here).
    func commitPendingWrites() { committer.commitAll() }

    /// A connection closed: its streams and the calls it had waiting for the index go.
    func connectionClosed(_ id: ConnectionID) {
        subscriptions.remove(connection: id)
        index.remove(connection: id)
        if let held = actions.connectionClosed(id), let timer = held.timer { scheduler.cancelTimer(timer) }
    }

    /// Drops (zeroed) the unsent output of every connection holding a reply its reader
    /// may no longer read, and closes those connections: class A once its key is purged
    /// (after the lock's grace period), class B once its key is purged unless the reader
    /// is the provider of a timeline still open (DESIGN §3), C and D when their key goes.
    func dropUnreadableOutput() {
        unsentOutput?.dropUnsentOutput { [store] tag in
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

/// The service hears of its background index: due reloads among what it found, and the
/// calls that waited for it (``whenIndexed(_:method:_:)``).
extension TimelineService: BackgroundIndexDelegate {
    /// What a slice of the background index found: the due reloads among it are
    /// announced, and the date timer re-armed for an earlier one.
    func indexed(_ found: [TimelineMetadata]) {
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

    /// Answers the calls that waited for the index, in the order they came, each under
    /// the authorization, keys and settings in force now (a Lock or a configuration
    /// reload that came while they waited applies to them).
    func indexCompleted(answering waiters: [IndexWaiters.Waiter]) {
        for waiter in waiters where waiter.context.isOpen {
            let authority = access.authority(for: waiter.context)
            guard access.authorization.permits(authority, method: waiter.method) else {
                waiter.context.deny(waiter.method)
                continue
            }
            // As in `handle`: the writes it must see (an AppendEntries behind a
            // PutTimeline of the same widget is parked until that write is durable).
            committer.settle(MethodTable.row(waiter.method)?.waits ?? .own)
            do throws(ServiceError) { try waiter.work(authority) } catch {
                waiter.context.fail(with: error, method: waiter.method)
            }
        }
        device.reportMemoryNotLocked()
    }

    /// A slice failed: each waiting call gets the error a synchronous completion would
    /// have thrown.
    func indexFailed(refusing waiter: IndexWaiters.Waiter, _ error: StoreError) {
        waiter.context.fail(with: .store(error), method: waiter.method)
    }
}

extension TimelineService: DeviceChangeFollower {
    func commitAcceptedWrites() { committer.commitAll() }

    func applyAnsweredWrites() { committer.applyAnswered() }

    func whenAcceptedWritesCommitted(_ body: @escaping () -> Void) { committer.whenCommitted(body) }

    func forgetPresentations() { responder.forgetAll() }

    func storeWiped() {
        unsentOutput?.dropUnsentOutput { _ in true }
        expireHeldActions()
        actions.forgetAll()
    }

    func deviceLocked() { expireHeldActions() }

    func configurationReplaced() {
        responder.revokePermits()
        // A registration decides a widget's class when it has no timeline yet.
        responder.forgetAll()
    }

    func presentationStampChanged(to stamp: PresentationCache.Stamp) {
        if responder.update(to: stamp) {
            // A key released or purged: replies waiting in connections follow the same rule.
            dropUnreadableOutput()
        }
    }

    func deviceChanged(publishedEvents: Bool) {
        // An unlock shows content again, a lock redacts it, new settings change what shows.
        if publishedEvents { refreshWatches(nil) }
        // An unlock delivers the actions held for it, once the watches show the unlock.
        followHeldActions()
        reschedule()
    }
}
