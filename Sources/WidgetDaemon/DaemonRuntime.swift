import FoundationEssentials
import Glibc
import Logging
import StoreAnchor
import StoreKeys
import VarlinkTransport
import WidgetdPOSIX
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
    /// Logs what the store finds outside any call (`StoreEventReporter`).
    private let storeEvents: StoreEventLog
    /// Held while the daemon runs: a second widgetd on the same directory is refused.
    private let stateLock: StateDirectoryLock
    private let service: WidgetService
    private let server: VarlinkServer
    private let listeningSocket: FileDescriptor
    /// The socket bound here, ours to close and remove at exit; `nil` when systemd passed one.
    private let boundSocket: ListeningSocket?
    private var signals: Signals?
    /// Follows logind (`[Session]`); its events reach the device through ``report(_:)``.
    private var sessionMonitor: SessionMonitor?
    /// The `[Session]` options the monitor runs with, so a reload restarts it only on a change.
    private var sessionOptions: SessionOptions

    /// `startOver`: `widgetd --start-over` (see `TimelineStore.init`).
    init(paths: DaemonPaths, environment: [String: String], startOver: Bool, logger: Logger) throws {
        self.paths = paths
        self.logger = logger
        let configuration = try ConfigurationLoader.load(mainFile: paths.configurationFile)
        Self.log(configuration.problems, to: logger)
        loop = try EventLoop()
        stateLock = try StateDirectoryLock(stateDirectory: paths.stateDirectory)
        let deviceKeySource = try Self.deviceKeySource(
            configuration, stateDirectory: paths.stateDirectory, environment: environment)
        store = try TimelineStore(
            stateDirectory: paths.stateDirectory,
            deviceKeySource: deviceKeySource, passcodeVerifier: Self.passcodeVerifier(for: deviceKeySource),
            rollbackCounter: Self.rollbackCounter(of: deviceKeySource),
            configuration: Self.storeConfiguration(configuration), startOver: startOver, now: Date())
        let opened = store.openReport
        if let caughtUp = opened.caughtUpRollbackCounter {
            logger.warning(
                "the keybag or catalog was written and the rollback counter not incremented before a crash: caught up",
                event: "rollback_counter_caught_up", metadata: ["counter": "\(caughtUp)"])
        }
        if opened.finishedInterruptedWipe {
            logger.critical(
                "a wipe cut short by a crash or power loss was finished: the store is a new one",
                event: "wipe_finished", metadata: ["state_directory": paths.stateDirectory])
        }
        storeEvents = StoreEventLog(logger: logger)
        store.reporter = storeEvents
        if let rebuild = opened.rebuiltLedger { storeEvents.ledgerRebuilt(rebuild) }
        if opened.awaitingPasscodeToRebuildLedger {
            logger.warning(
                "--start-over: the catalog is lost; only placeholders are served until the first unlock with the passcode rebuilds it from the timeline files",
                event: "catalog_rebuild_awaits_passcode", metadata: ["state_directory": paths.stateDirectory])
        } else if let erased = opened.startedOver {
            logger.critical(
                "keybag missing: started over as --start-over asked; erased what no key can read any more, made a new keybag",
                event: "started_over", metadata: ["erased": erased, "state_directory": paths.stateDirectory])
        } else if opened.awaitingPasscodeToAnchor {
            logger.warning(
                "--start-over: the keybag and catalog carry no rollback anchor and the TPM counter moved on; they are anchored at the first unlock with the passcode",
                event: "rollback_anchor_awaits_passcode", metadata: ["state_directory": paths.stateDirectory])
        } else if startOver {
            logger.notice("--start-over: nothing to start over from, the keybag is there", event: "start_over_unneeded")
        }
        if let passed = try Systemd.listenFileDescriptors().first {
            listeningSocket = passed
            boundSocket = nil
        } else {
            let bound = try UnixListener.listen(at: paths.socketPath)
            listeningSocket = bound.fd
            boundSocket = bound
        }
        service = WidgetService(
            scheduler: loop, store: store,
            authorization: Authorization(configuration: configuration, daemonUID: getuid()),
            limits: .default, logger: logger)
        server = VarlinkServer(
            loop: loop, listeningSocket: listeningSocket, limits: configuration.serverLimits, service: .widgetd, handler: service,
            logger: logger)
        // Weak: the runtime owns both.
        service.timelines.unsentOutput = server
        // Providers with `Unit=` are started on demand by the user's systemd manager,
        // reached at the first start (a system instance has none, and logs that then).
        service.timelines.unitStarter = SystemdUserManager(loop: loop, logger: logger)
        if let errno = PeerSandbox.peerPIDFDUnavailable() {
            logger.warning(
                "this kernel gives no pidfd of a connection's peer (SO_PEERPIDFD: \(errno)): sandboxed apps cannot be told apart, and peers of the daemon's own user may only call GetStatus",
                event: "peer_pidfd_unavailable")
        }
        // Read at each connection, so a reloaded configuration's groups apply to the next
        // ones. Weak: the service owns its access control, and the runtime both.
        server.reservePolicy = service.access
        sessionOptions = configuration.session
    }

    deinit {
        if let boundSocket {
            Syscall.close(boundSocket.fd)
            // Only the file bound here: a socket another daemon bound since stays.
            boundSocket.removeFileIfOurs()
        }
    }

    /// Where the device key comes from (`KeyProtection=`). With `tpm2` a TPM that is
    /// missing or failing throws (`TPM2DeviceKeyError.deviceUnavailable`): the start
    /// fails, it never goes on with a software key.
    static func deviceKeySource(
        _ configuration: Configuration, stateDirectory: String, environment: [String: String]
    ) throws -> any DeviceKeySource {
        switch configuration.keyProtection {
        case .software:
            FileDeviceKeySource(stateDirectory: stateDirectory, credentialsDirectory: environment["CREDENTIALS_DIRECTORY"])
        case .tpm2:
            try TPM2StoreDeviceKeySource.open(tcti: configuration.tpm2Device, stateDirectory: stateDirectory)
        }
    }

    /// Who verifies passcode attempts: with `KeyProtection=tpm2` the TPM that seals the
    /// device key (the same connection), else nobody but the keybag.
    static func passcodeVerifier(for source: any DeviceKeySource) -> (any PasscodeVerifier)? {
        guard let tpm = source as? TPM2StoreDeviceKeySource else { return nil }
        return TPM2StorePasscodeVerifier(sharingDeviceOf: tpm)
    }

    /// The counter that anchors the keybag and the catalog: with `KeyProtection=tpm2` the
    /// NV counter of the TPM that seals the device key (one connection to it); none in
    /// software mode.
    static func rollbackCounter(of deviceKeySource: any DeviceKeySource) -> (any RollbackCounter)? {
        (deviceKeySource as? TPM2StoreDeviceKeySource).map { TPM2StoreRollbackCounter(device: $0.sealed.device) }
    }

    /// The store's share of the configuration.
    static func storeConfiguration(_ configuration: Configuration) -> StoreConfiguration {
        var store = StoreConfiguration()
        store.classAGrace = configuration.classAGraceSeconds
        store.wipeAfterFailedAttempts = configuration.wipeAfterFailedAttempts
        store.maxTimelineBytes = configuration.maxTimelineBytes
        store.maxCachedTimelines = configuration.maxCachedTimelines
        store.requireLockedMemory = configuration.requireLockedMemory
        store.requirePasscodeAfter = configuration.session.requirePasscodeAfter
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
        startSessionMonitor()
        logger.notice(
            "widgetd \(Daemon.version) ready", event: "started",
            metadata: [
                "state": store.deviceState.rawValue, "state_directory": paths.stateDirectory,
                "socket": boundSocket?.path ?? "passed by systemd",
            ])
        Systemd.notify([Systemd.Notification.ready, Systemd.Notification.status(statusLine)].joined(separator: "\n"))
        if let reason = store.journalUnavailable {
            logger.warning(
                "writes go straight to their files: no room for the journal", event: "journal_unavailable", error: reason)
        }
        if let reason = store.journalUnfoldedAtOpen {
            // Kept, never removed: every acknowledged write is served from the journal
            // and folded into its file by the first fold with room (or the next start).
            logger.warning(
                "journaled writes kept in the journal: no room to fold them; free space on the state directory's file system",
                event: "journal_unfolded", error: reason, metadata: ["records": "\(store.recoveredJournalRecords)"])
        } else if store.recoveredJournalRecords > 0 {
            // Writes acknowledged before an unclean stop, now in their files: nothing was lost.
            logger.notice(
                "journaled writes recovered", event: "journal_recovered",
                metadata: ["records": "\(store.recoveredJournalRecords)"])
        }
        try loop.run()
        sessionMonitor?.close()
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
        // A keybag or settings write under way finishes (its call goes unanswered, as
        // after a crash at that point, which the anchor's catch-up covers).
        DeviceWrites.queue.sync {}
        // The files alone then hold everything; a failure here loses nothing (the
        // journal is replayed at the next start).
        do { try store.foldJournal() } catch {
            logger.error("journal not folded at stop", event: "checkpoint_failed", error: error)
        }
        server.close()
        loop.stop()
    }

    /// (Re)starts following logind with the current `[Session]` options. The system
    /// instance is the one running as root or on the system configuration file (what
    /// the system unit passes); any other is a user instance.
    private func startSessionMonitor() {
        sessionMonitor?.close()
        let systemInstance = getuid() == 0 || paths.configurationFile == DaemonPaths.system.configurationFile
        let monitor = SessionMonitor(
            loop: loop,
            scope: SessionMonitor.scope(of: sessionOptions.sessions, uid: getuid(), systemInstance: systemInstance),
            options: sessionOptions, events: self, logger: logger)
        sessionMonitor = monitor
        service.device.sessionFollower = monitor
        monitor.start()
    }

    /// Logs what the configuration ignored: a warning per unknown key or section, an
    /// error per provider file that registered nothing.
    private static func log(_ problems: [ConfigurationProblem], to logger: Logger) {
        for problem in problems {
            switch problem.severity {
            // The level is the severity: the message does not say it again.
            case .warning: logger.warning("\(problem.logMessage)", event: "configuration_warning")
            case .error:
                logger.error("\(problem.logMessage)", event: problem.disablesProviderFile ? "provider_disabled" : "configuration_error")
            }
        }
    }

    /// Reloads the configuration (SIGHUP) without touching released keys. A bad file
    /// is logged and the running configuration kept, and the status systemd shows says
    /// the reload failed (the unit's `ExecReload=` runs `--check-config` first, so that
    /// `systemctl reload` itself fails on a bad file and sends no signal).
    private func reload() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let monotonic = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        Systemd.notify("\(Systemd.Notification.reloading)\nMONOTONIC_USEC=\(monotonic)")
        var status = statusLine
        do {
            let new = try ConfigurationLoader.load(mainFile: paths.configurationFile)
            Self.log(new.problems, to: logger)
            service.device.reconfigure(
                Authorization(configuration: new, daemonUID: getuid()), store: Self.storeConfiguration(new))
            if new.session != sessionOptions {
                sessionOptions = new.session
                startSessionMonitor()
            }
            logger.notice("configuration reloaded", event: "reloaded", metadata: ["providers": "\(new.providers.count)"])
        } catch {
            logger.error("configuration not reloaded", event: "reload_failed", error: error)
            status = "reload failed, running on the previous configuration: \(error)"
        }
        // READY=1 ends the reload either way (systemd waits for it); the status says how
        // it went.
        Systemd.notify([Systemd.Notification.ready, Systemd.Notification.status(status)].joined(separator: "\n"))
    }
}

extension DaemonRuntime: SessionEvents {
    /// The one place a session's event reaches the device: its lock path.
    func report(_ event: SessionEvent) {
        switch event {
        case .lock(let reason, _):
            // Sleep's purge at once follows from its reason (`DeviceController.apply`).
            let lockReason: LockReason = switch reason {
            case .session: .session
            case .sleep: .sleep
            case .sessionEnd: .sessionEnd
            }
            let logger = logger.with("locked_by", reason.rawValue)
            do {
                try service.device.apply(.lock(lockReason)) { logger.info("locked", event: "lock") }
            } catch {
                logger.error("session lock failed", event: "lock_failed", error: error)
            }
        }
    }
}
