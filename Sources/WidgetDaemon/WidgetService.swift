import FoundationEssentials
import Logging
import Varlink
import WidgetCrypto
import WidgetModel
import WidgetStore

/// The io.widgetd.* methods: the store and the presentation rules behind Varlink.
///
/// Threading: everything runs on the event loop's thread, except the passcode KDF,
/// which runs on a background queue and hands its result back through
/// `EventLoop.execute(_:)`. The store is therefore only ever touched from the loop.
final class WidgetService: VarlinkCallHandler {
    let loop: EventLoop
    let store: TimelineStore
    var authorization: Authorization
    var logger: Logger
    /// The wall clock, injected so tests can move time without sleeping.
    let now: () -> Date
    /// Timeline limits for validation of provider input.
    var limits: TimelineLimits

    /// The user's settings, mirrored from the store's settings file; the most
    /// restrictive ones while that file cannot be read (`settingsUnreadable`).
    var settings: Settings
    /// Whether `settings` stand in for a settings file that could not be read, until
    /// an administrator's `SetSettings` (or a wipe) writes a new one.
    var settingsUnreadable = false
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
    /// Unlock and SetPasscode calls wait here while one is being derived (see
    /// `PasscodeRequest`).
    var pendingPasscodeRequests: [PasscodeRequest] = []
    var passcodeWorkInProgress = false
    /// The one loop timer that wakes the service for the next due change.
    var wakeTimer: TimerID?
    var wakeDate: Date?

    /// Encoded presentations, reused until what they show changes.
    var presentations: PresentationCache
    /// `GetPresentation` messages seen, by their exact bytes, and the cache slot that
    /// answers each: hosts repeat the same request, and recognising it spares decoding it.
    var presentationRequests = PresentationRequestTable(
        capacity: WidgetService.maxRememberedRequests, maxMessageBytes: WidgetService.maxRememberedRequestBytes)
    /// Counts configuration reloads; a connection remembers the count under which its
    /// peer was allowed cached reads (see ``cachedReply(to:connection:peer:now:permit:protection:)``).
    var permitGeneration: UInt64 = 1
    /// The key state and settings the cached presentations were last checked against:
    /// kept current by `dropStalePresentations()`, so a cached read need not recompute it.
    var presentationStamp: PresentationCache.Stamp?

    /// PutTimeline calls accepted and sealed but not yet durable nor answered: they are
    /// committed together (one group commit) when the loop has read every ready call.
    var pendingWrites: [(context: CallContext, write: TimelineStore.TimelineWrite)] = []
    /// The loop timer that commits `pendingWrites`.
    var commitTimer: TimerID?
    /// The group commits running on worker threads, oldest first (no two write one widget).
    var inFlightCommits: [InFlightCommit] = []

    /// The server whose connections hold the replies not yet sent, so that those holding
    /// content of a purged class can be dropped (``dropUnreadableOutput()``). Weak: the
    /// daemon owns both.
    weak var unsentOutput: VarlinkServer?
    /// The logind sessions followed, for `GetStatus`; `nil` when none are (set by the daemon).
    var watchedSessions: () -> [String]? = { nil }

    /// The encoder for every reply: sorted keys, so equal values give equal bytes.
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(
        loop: EventLoop, store: TimelineStore, authorization: Authorization, limits: TimelineLimits,
        logger: Logger, now: @escaping () -> Date
    ) throws {
        self.loop = loop
        self.store = store
        self.authorization = authorization
        self.limits = limits
        self.logger = logger
        self.now = now
        reloads = ReloadSchedule(store: store)
        store.refusedEntry = { [logger] error in
            logger.warning("timeline entry refused, skipped", event: "entry_refused", error: error)
        }
        (settings, settingsUnreadable) = Self.loadSettings(from: store, logger: logger)
        presentations = PresentationCache(limit: store.configuration.maxCachedTimelines)
        // Indexed in slices between calls once the loop runs, so that start-up does not
        // grow with the number of stored timelines. Calls that need every timeline
        // (ListWidgets, ReloadTimelines, WatchReloads) finish the index first.
        scheduleIndexSlice()
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

    /// How many stored timelines are verified into the reload schedule per loop turn:
    /// small enough (a few ms) that calls arriving meanwhile barely wait.
    static let indexSlice = 32

    /// Whether every stored timeline is in the store's index (and so in `reloads`).
    var reloadsComplete = false

    /// Verifies up to `limit` more stored timelines into the reload schedule, announces
    /// any due reload among them, and schedules the next slice if files remain.
    func indexStoredTimelines(limit: Int) throws {
        guard !reloadsComplete else { return }
        guard let found = try store.indexNextTimelines(limit: limit) else {
            reloadsComplete = true
            // Indexing allocated and freed per file; give those pages back now that it is done.
            ProcessHygiene.returnFreeMemory()
            return
        }
        // Only this slice is looked at: a pass over the whole schedule per slice would
        // make indexing quadratic in the number of stored timelines.
        let now = now()
        for metadata in found {
            guard let due = metadata.reloadDue else { continue }
            if due <= now {
                if announce(ReloadRequest(widget: metadata.widget.description, reason: .due)) {
                    reloads.announced(metadata.widget)
                }
            } else if wakeDate.map({ due < $0 }) ?? true {
                reschedule()
            }
        }
        scheduleIndexSlice()
    }

    /// Indexes the next slice when the loop has answered the calls that are ready.
    private func scheduleIndexSlice() {
        _ = loop.schedule(at: Date()) { [weak self] in
            guard let self else { return }
            do { try indexStoredTimelines(limit: Self.indexSlice) } catch {
                logger.error("stored timelines not indexed", event: "index_failed", error: error)
            }
        }
    }

    /// Completes the reload schedule at once, for calls that need every stored timeline.
    func finishIndexing() throws {
        while !reloadsComplete { try indexStoredTimelines(limit: .max) }
    }

    /// The saved settings, and whether they could not be read. A settings file that is
    /// missing from a store that is not new, or that does not verify or parse, means
    /// the most restrictive settings (fail closed, issue 13); a new store starts with
    /// the documented defaults and writes them, so that its file is never missing later.
    private static func loadSettings(from store: TimelineStore, logger: Logger) -> (Settings, unreadable: Bool) {
        let problem: any Error
        do {
            if let bytes = try store.loadSettings() {
                return (try JSONDecoder().decode(Settings.self, from: Data(bytes)), false)
            }
            guard !store.isFresh else {
                saveDefaultSettings(to: store, logger: logger)
                return (Settings(), false)
            }
            problem = SettingsFileMissing()
        } catch {
            problem = error
        }
        logger.warning(
            "settings file unreadable; the most restrictive settings apply until an administrator sets them",
            event: "settings_unreadable", error: problem)
        return (.mostRestrictive, true)
    }

    /// What `settings_unreadable` logs when an old store has no settings file.
    private struct SettingsFileMissing: Error, CustomStringConvertible {
        var description: String { "missing" }
    }

    /// Writes the defaults of a new store (or a wiped one) as its settings file.
    private static func saveDefaultSettings(to store: TimelineStore, logger: Logger) {
        do { try store.saveSettings(Array(try JSONEncoder().encode(Settings()))) } catch {
            // Not fatal: the defaults apply now; the next start finds no file and closes them.
            logger.error("default settings not saved", event: "settings_not_saved", error: error)
        }
    }

    /// After a wipe the store is a new one: its settings are a new store's defaults,
    /// in memory and on disk, and monitors hear of the change.
    func settingsWereWiped() {
        settings = Settings()
        settingsUnreadable = false
        Self.saveDefaultSettings(to: store, logger: logger)
        publishDeviceEvent(.settings)
    }

    /// A reloaded configuration: new roles and providers apply to every connection's
    /// next call; keys and open streams are untouched.
    func reconfigure(_ authorization: Authorization) {
        self.authorization = authorization
        authorities.removeAll()
        permitGeneration += 1
        // A registration decides a widget's class when it has no timeline yet.
        presentations.removeAll()
    }

    // MARK: Dispatch

    func handle(_ call: VarlinkCall, context: CallContext) {
        // Every other call sees the accepted writes committed, exactly as if each had
        // been committed on its own before it.
        if !pendingWrites.isEmpty || !inFlightCommits.isEmpty, call.method != "io.widgetd.Provider.PutTimeline" {
            commitPendingWrites()
        }
        let authority = authority(for: context)
        guard authorization.permits(authority, method: call.method) else {
            deny(call.method, context: context)
            return
        }
        do {
            switch call.method {
            case "io.widgetd.Device.GetStatus": try getStatus(call, context)
            case "io.widgetd.Device.SetPasscode": try setPasscode(call, context)
            case "io.widgetd.Device.Unlock": try unlock(call, context)
            case "io.widgetd.Device.Lock": try lock(call, context)
            case "io.widgetd.Device.Wipe": try wipe(call, context)
            case "io.widgetd.Device.GetSettings": context.reply(SettingsReply(settings: settings))
            case "io.widgetd.Device.SetSettings": try setSettings(call, context)
            case "io.widgetd.Device.Monitor": try monitor(call, context)
            case "io.widgetd.Provider.PutTimeline": try putTimeline(call, context, authority)
            case "io.widgetd.Provider.AppendEntries": try appendEntries(call, context, authority)
            case "io.widgetd.Provider.GetTimeline": try getTimeline(call, context, authority)
            case "io.widgetd.Provider.CloseTimeline": try closeTimeline(call, context, authority)
            case "io.widgetd.Provider.DeleteTimeline": try deleteTimeline(call, context, authority)
            case "io.widgetd.Provider.WatchReloads": try watchReloads(call, context, authority)
            case "io.widgetd.Host.ListWidgets": try listWidgets(call, context)
            case "io.widgetd.Host.GetPresentation": try getPresentation(call, context)
            case "io.widgetd.Host.Watch": try watch(call, context)
            case "io.widgetd.Host.ReloadTimelines": try reloadTimelines(call, context)
            default:
                let known = ["io.widgetd.Device", "io.widgetd.Provider", "io.widgetd.Host"].contains(call.interface)
                context.fail(known ? .methodNotFound(call.method) : .interfaceNotFound(call.interface))
            }
        } catch {
            fail(context, with: error, method: call.method)
        }
        dropStalePresentations()
        reportMemoryNotLocked()
    }

    func connectionClosed(_ id: ConnectionID) {
        authorities[id] = nil
        subscriptions.remove(connection: id)
        pendingPasscodeRequests.removeAll { $0.context.connection == id }
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
    func deny(_ method: String, context: CallContext, widget: String? = nil) {
        let logger = widget.map { context.logger.with("widget.id", $0) } ?? context.logger
        logger.notice("permission denied", event: "permission_denied", metadata: ["method": method])
        context.fail(ServiceError.permissionDenied.varlinkError)
    }

    /// Turns any error a method threw into the reply it deserves.
    func fail(_ context: CallContext, with error: any Error, method: String) {
        switch error {
        case let error as ServiceError:
            context.fail(error.varlinkError)
        case let error as VarlinkError:
            context.fail(error)
        case let error as StoreError:
            context.fail(serviceError(for: error, method: method, logger: context.logger).varlinkError)
        case let error as InvalidTimeline:
            context.fail(ServiceError.invalidTimeline(error.reason).varlinkError)
        default:
            // An unexpected error's description could quote its input: log its type only.
            context.logger.error(
                "method failed", event: "method_failed", error: ErrorType(of: error), metadata: ["method": method])
            context.fail(ServiceError.storageFailure("internal error").varlinkError)
        }
    }

    /// Maps a store error to the service error a client can act on, logging the ones
    /// an administrator must see (corruption, I/O) through `logger` (the call's).
    func serviceError(for error: StoreError, method: String, widget: String? = nil, logger: Logger) -> ServiceError {
        switch error {
        case .protectedDataUnavailable: return .protectedDataUnavailable
        case .widgetNotFound: return .widgetNotFound(widget ?? "")
        case .tooLarge(let limit), .tooManyWidgets(let limit): return .tooLarge(limit: limit)
        case .wrongPasscode(let failed, let retryAfter): return .wrongPasscode(failedAttempts: failed, retryAfter: retryAfter)
        case .tryAgainLater(let retryAfter): return .tryAgainLater(retryAfter: retryAfter)
        case .passcodeRequired: return .passcodeRequired
        case .unlockInterrupted: return .unlockInterrupted
        case .wiped: return .wiped
        default:
            logger.error("store failure", event: "store_failure", error: error, metadata: ["method": method])
            return .storageFailure("\(error)")
        }
    }

    /// Drops (zeroed) the unsent output of every connection holding a reply its reader
    /// may no longer read, and closes those connections: class A once its key is purged
    /// (after the lock's grace period), class B once its key is purged unless the reader
    /// is the provider of a timeline still open (DESIGN §3), C and D when their key goes.
    func dropUnreadableOutput() {
        unsentOutput?.dropUnsentOutput { [store] protection in
            switch protection.protectionClass {
            case .completeUnlessOpen:
                !store.isKeyAvailable(.completeUnlessOpen) && !(protection.openTimeline.map(store.isOpen) ?? false)
            case .complete, .completeUntilFirstUserAuthentication, .none:
                !store.isKeyAvailable(protection.protectionClass)
            }
        }
    }

    /// Parses a widget id parameter.
    func widgetID(_ text: String) throws -> WidgetID {
        do { return try WidgetID(text) } catch { throw ServiceError.invalidParameter("widget") }
    }
}
