import Foundation
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

    /// The user's settings, mirrored from the store's settings file.
    var settings: Settings
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
    /// peer was allowed cached reads (see ``cachedReply(to:connection:peer:now:permit:)``).
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
        settings = Self.loadSettings(from: store, logger: logger)
        presentations = PresentationCache(limit: store.configuration.maxCachedTimelines)
        // Indexed in slices between calls once the loop runs, so that start-up does not
        // grow with the number of stored timelines. Calls that need every timeline
        // (ListWidgets, ReloadTimelines, WatchReloads) finish the index first.
        scheduleIndexSlice()
        reschedule()
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
                logger.error("stored timelines not indexed", event: "index_failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Completes the reload schedule at once, for calls that need every stored timeline.
    func finishIndexing() throws {
        while !reloadsComplete { try indexStoredTimelines(limit: .max) }
    }

    private static func loadSettings(from store: TimelineStore, logger: Logger) -> Settings {
        do {
            guard let bytes = try store.loadSettings() else { return Settings() }
            return try JSONDecoder().decode(Settings.self, from: Data(bytes))
        } catch {
            logger.error("settings file unreadable; using defaults", event: "settings_unreadable", metadata: ["error": "\(error)"])
            return Settings()
        }
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
        var metadata: Logger.Metadata = [
            "method": method, "peer.uid": "\(context.peer.uid)", "peer.pid": "\(context.peer.pid)",
        ]
        if let widget { metadata["widget.id"] = widget }
        logger.notice("permission denied", event: "permission_denied", metadata: metadata)
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
            context.fail(serviceError(for: error, method: method).varlinkError)
        case let error as InvalidTimeline:
            context.fail(ServiceError.invalidTimeline(error.reason).varlinkError)
        default:
            // An unexpected error's description could quote its input: log its type only.
            logger.error("method failed", event: "method_failed", metadata: ["method": method, "error": "\(type(of: error))"])
            context.fail(ServiceError.storageFailure("internal error").varlinkError)
        }
    }

    /// Maps a store error to the service error a client can act on, logging the ones
    /// an administrator must see (corruption, I/O).
    func serviceError(for error: StoreError, method: String, widget: String? = nil) -> ServiceError {
        switch error {
        case .protectedDataUnavailable: return .protectedDataUnavailable
        case .widgetNotFound: return .widgetNotFound(widget ?? "")
        case .tooLarge(let limit), .tooManyWidgets(let limit): return .tooLarge(limit: limit)
        case .wrongPasscode(let failed, let retryAfter): return .wrongPasscode(failedAttempts: failed, retryAfter: retryAfter)
        case .tryAgainLater(let retryAfter): return .tryAgainLater(retryAfter: retryAfter)
        case .passcodeRequired: return .passcodeRequired
        case .wiped: return .wiped
        default:
            logger.error("store failure", event: "store_failure", metadata: ["method": method, "error": "\(error)"])
            return .storageFailure("\(error)")
        }
    }

    /// Parses a widget id parameter.
    func widgetID(_ text: String) throws -> WidgetID {
        do { return try WidgetID(text) } catch { throw ServiceError.invalidParameter("widget") }
    }
}
