import Foundation
import Glibc
import WidgetCrypto
import WidgetModel
import WidgetStore

/// A running widgetd: the event loop, the store, the service and the server, started
/// in that order and stopped in reverse, with systemd's readiness, reload, watchdog and
/// stop protocol around them.
final class DaemonRuntime {
    private let paths: DaemonPaths
    private let logger: Logger
    private let loop: EventLoop
    private let store: TimelineStore
    /// Held while the daemon runs: a second widgetd on the same directory is refused.
    private let stateLock: StateDirectoryLock
    private let service: WidgetService
    private let server: VarlinkServer
    private let listeningSocket: Int32
    /// Whether the socket is ours to close and unlink (not systemd's).
    private let ownsSocket: Bool
    private var signals: Signals?

    init(paths: DaemonPaths, environment: [String: String], logger: Logger) throws {
        self.paths = paths
        self.logger = logger
        let configuration = try ConfigurationLoader.load(mainFile: paths.configurationFile)
        loop = try EventLoop()
        stateLock = try StateDirectoryLock(stateDirectory: paths.stateDirectory)
        store = try TimelineStore(
            stateDirectory: paths.stateDirectory, credentialsDirectory: environment["CREDENTIALS_DIRECTORY"],
            configuration: Self.storeConfiguration(configuration), now: Date())
        if let passed = try Systemd.listenFileDescriptors().first {
            listeningSocket = passed
            ownsSocket = false
        } else {
            listeningSocket = try UnixListener.listen(at: paths.socketPath)
            ownsSocket = true
        }
        service = try WidgetService(
            loop: loop, store: store,
            authorization: Authorization(configuration: configuration, daemonUID: getuid()),
            limits: .default, logger: logger, now: Date.init)
        server = VarlinkServer(
            loop: loop, listeningSocket: listeningSocket, limits: configuration.serverLimits, handler: service,
            logger: logger)
    }

    deinit {
        if ownsSocket {
            close(listeningSocket)
            unlink(paths.socketPath)
        }
    }

    /// The store's share of the configuration.
    static func storeConfiguration(_ configuration: Configuration) -> StoreConfiguration {
        var store = StoreConfiguration()
        store.classAGrace = configuration.classAGraceSeconds
        store.wipeAfterFailedAttempts = configuration.wipeAfterFailedAttempts
        store.maxTimelineBytes = configuration.maxTimelineBytes
        store.maxCachedTimelines = configuration.maxCachedTimelines
        store.kdfCost = switch configuration.passcodeKDF {
        case .minimum: .minimum
        case .interactive: .interactive
        case .moderate: .moderate
        case .sensitive: .sensitive
        }
        return store
    }

    /// Serves until SIGTERM or SIGINT.
    func run() throws {
        try server.start()
        signals = try Signals(loop: loop) { [unowned self] signal in
            switch signal {
            case .terminate, .interrupt: stop()
            case .hangUp: reload()
            }
        }
        Systemd.startWatchdogPings(on: loop)
        logger.notice(
            "widgetd \(Daemon.version) ready", event: "started",
            metadata: ["state": store.deviceState.rawValue, "socket": ownsSocket ? paths.socketPath : "passed by systemd"])
        Systemd.notify([Systemd.Notification.ready, Systemd.Notification.status(statusLine)].joined(separator: "\n"))
        if let reason = store.journalUnavailable {
            logger.warning(
                "writes go straight to their files: no room for the journal", event: "journal_unavailable",
                metadata: ["error": "\(reason)"])
        }
        if store.finishedInterruptedWipe {
            // Committed to before the stop; what was left of the erased store is gone now.
            logger.critical("an interrupted wipe was finished", event: "wipe_finished")
        }
        if store.recoveredJournalRecords > 0 {
            // Writes acknowledged before an unclean stop, now in their files: nothing was lost.
            logger.notice(
                "journaled writes recovered", event: "journal_recovered",
                metadata: ["records": "\(store.recoveredJournalRecords)"])
        }
        try loop.run()
        signals?.close()
        logger.notice("widgetd stopped", event: "stopped")
    }

    private var statusLine: String {
        "\(store.deviceState.rawValue), \(server.connectionCount) connection(s)"
    }

    /// Stops serving; keys are zeroed as the store is released after the loop ends.
    private func stop() {
        Systemd.notify(Systemd.Notification.stopping)
        logger.notice("stopping", event: "stopping")
        // Writes already accepted are committed and answered before the connections close.
        service.commitPendingWrites()
        // The files alone then hold everything; a failure here loses nothing (the
        // journal is replayed at the next start).
        do { try store.checkpoint() } catch {
            logger.error("journal not folded at stop", event: "checkpoint_failed", metadata: ["error": "\(error)"])
        }
        server.close()
        loop.stop()
    }

    /// Reloads the configuration (SIGHUP) without touching released keys. A bad file
    /// is logged and the running configuration kept.
    private func reload() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let monotonic = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        Systemd.notify("\(Systemd.Notification.reloading)\nMONOTONIC_USEC=\(monotonic)")
        do {
            let new = try ConfigurationLoader.load(mainFile: paths.configurationFile)
            store.configuration = Self.storeConfiguration(new)
            service.reconfigure(Authorization(configuration: new, daemonUID: getuid()))
            logger.notice("configuration reloaded", event: "reloaded", metadata: ["providers": "\(new.providers.count)"])
        } catch {
            logger.error("configuration not reloaded: \(error)", event: "reload_failed")
        }
        Systemd.notify([Systemd.Notification.ready, Systemd.Notification.status(statusLine)].joined(separator: "\n"))
    }
}
