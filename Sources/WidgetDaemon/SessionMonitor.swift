import FoundationEssentials
import Logging
import WidgetdPOSIX

/// Follows the logind sessions the daemon belongs to (DESIGN §8): a watched session's
/// lock, sleep, and the end of the last watched session each become a
/// ``SessionEvent`` for the daemon to act on. A session's unlock releases nothing: keys
/// need the passcode.
///
/// It decides nothing itself (``SessionWatch`` does) and touches no device state: it
/// carries ``SessionWatch``'s effects out over the bus (``LogindBus``), logs, and reports
/// to ``SessionEvents``. Without a system bus, or without logind on it, it says so once
/// and the daemon runs on. A bus lost after logind answered on it locks the device (no
/// lock could be heard any more) and is reached for again, every second at first and at
/// most every minute, until logind answers on a new connection.
///
/// A signal that is not logind's (``LogindGate``) is ignored and logged, as is a message
/// from logind that does not parse, together at most ``messageLogBurst`` lines a
/// ``messageLogInterval``: any local user can send them.
///
/// Threading: the loop's thread only.
final class SessionMonitor {
    /// The seat whose active session the system instance watches.
    static let seat = "seat0"

    private let loop: EventLoop
    private var watch: SessionWatch
    private var bus: LogindBus?
    private weak var events: (any SessionEvents)?
    private let logger: Logger
    /// Whether logind answered: until then (and without a bus) no session is watched,
    /// and `GetStatus` says so by leaving `sessions` out.
    private var logindAnswered = false
    /// Whether `session_bus_unavailable` was logged: once per run.
    private var reportedUnavailable = false
    /// The next attempt to reach the bus again after it was lost, and the wait before the one after it.
    private var reconnectTimer: TimerID?
    private var reconnectDelay = SessionMonitor.firstReconnectDelay
    /// Whether ``close()`` was called: no attempt to reconnect follows it.
    private var closed = false
    /// How often refused and malformed messages are logged.
    private var messageLog = LogRateLimit(burst: SessionMonitor.messageLogBurst, interval: SessionMonitor.messageLogInterval)

    /// Lines about refused or malformed messages logged per ``messageLogInterval`` at most.
    static let messageLogBurst = 10
    static let messageLogInterval: Double = 60

    /// The wait before the first attempt to reach a lost bus; it doubles up to ``maxReconnectDelay``.
    static let firstReconnectDelay: Double = 1
    static let maxReconnectDelay: Double = 60

    /// A monitor for `scope` with `options`; nothing happens before ``start()``.
    init(
        loop: EventLoop, scope: SessionWatch.Scope, options: SessionOptions, events: any SessionEvents, logger: Logger
    ) {
        self.loop = loop
        self.watch = SessionWatch(scope: scope, options: options)
        self.events = events
        self.logger = logger
    }

    /// What `Sessions=` means for this instance: ids, or `auto`, which is every session
    /// of `uid` for a user instance and the active session of `seat0` for the system one.
    static func scope(of selection: SessionSelection, uid: UInt32, systemInstance: Bool) -> SessionWatch.Scope {
        switch selection {
        case .ids(let ids): .listed(Set(ids))
        case .auto: systemInstance ? .activeSession(seat: seat) : .sessionsOfUser(uid)
        }
    }

    /// The watched session ids (`GetStatus.sessions`), or `nil` while none can be
    /// followed: no bus, no logind, or every `[Session]` source off.
    var watchedSessions: [String]? {
        guard bus != nil, logindAnswered else { return nil }
        return watch.watchedIDs
    }

    /// Connects to the system bus and asks logind what to watch; with every source off
    /// it does not connect at all.
    func start() {
        guard watch.options.followsSessions else { return }
        guard connect() else { return }
        perform(watch.start())
    }

    /// Opens the bus and subscribes to logind's signals; on failure, says so (once) and
    /// returns false.
    private func connect() -> Bool {
        do {
            let bus = try LogindBus(
                loop: loop, observe: { [unowned self] in observe($0) }, failed: { [unowned self] in busFailed($0) })
            self.bus = bus
            try bus.subscribe(seat: Self.seatOf(watch.scope))
        } catch {
            bus?.close()
            bus = nil
            reportUnavailable(error)
            return false
        }
        return true
    }

    /// Stops following: no event is reported after it, and a lost bus is not reached for again.
    func close() {
        closed = true
        if let reconnectTimer { loop.cancel(reconnectTimer) }
        reconnectTimer = nil
        bus?.close()
        bus = nil
    }

    /// Tries the bus again after `reconnectDelay`, doubling the wait for the next try.
    private func scheduleReconnect() {
        guard !closed, reconnectTimer == nil else { return }
        let delay = reconnectDelay
        reconnectDelay = min(reconnectDelay * 2, Self.maxReconnectDelay)
        reconnectTimer = loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            reconnectTimer = nil
            guard !closed, bus == nil else { return }
            guard connect() else { return scheduleReconnect() }
            logger.notice("reached the system bus again: asking logind", event: "session_bus_reconnected")
            perform(watch.start())
        }
    }

    private static func seatOf(_ scope: SessionWatch.Scope) -> String? {
        switch scope {
        case .activeSession(let seat): seat
        case .sessionsOfUser, .listed: nil
        }
    }

    private func observe(_ observation: SessionWatch.Observation) {
        let before = watch.watchedIDs
        var firstAnswer = false
        switch observation {
        case .sessionList, .activeSession:
            firstAnswer = !logindAnswered
            logindAnswered = true
            reconnectDelay = Self.firstReconnectDelay
        case .seatChanged, .sessionNew, .sessionRemoved, .lock, .unlock, .lockedHint, .state, .prepareForSleep,
             .logindStarted, .busLost:
            break
        }
        let effects = watch.observe(observation)
        let after = watch.watchedIDs
        if after != before || firstAnswer {
            logger.info(
                "watching logind sessions", event: "sessions_watched",
                metadata: ["sessions": after.joined(separator: " ")])
        }
        perform(effects)
    }

    private func perform(_ effects: [SessionWatch.Effect]) {
        for effect in effects {
            switch effect {
            case .report(let event):
                logLock(event)
                events?.report(event)
            case .listSessions:
                ask { (bus: LogindBus) throws(SystemError) in try bus.listSessions() }
            case .readActiveSession:
                ask { (bus: LogindBus) throws(SystemError) in try bus.readActiveSession(seat: Self.seat) }
            case .unlockReleasesNothing(let session):
                logger.notice(
                    "session unlocked without a password: no key released", event: "session_unlocked",
                    metadata: ["session.id": session])
            }
        }
    }

    private func ask(_ question: (LogindBus) throws(SystemError) -> Void) {
        guard let bus else { return }
        do { try question(bus) } catch { busFailed(error) }
    }

    private func logLock(_ event: SessionEvent) {
        switch event {
        case .lock(.session, _):
            logger.notice("the session was locked: locking", event: "session_lock")
        case .lock(.sleep, _):
            logger.notice("the system prepares for sleep: locking, classes A and B purged", event: "sleep_lock")
        case .lock(.sessionEnd, _):
            logger.notice("the last watched session ended: locking", event: "session_end_lock")
        }
    }

    private func busFailed(_ error: any Error) {
        switch error {
        case let reply as LogindBus.ErrorReply:
            // logind is not there (or refuses us): the bus stays, in case it starts.
            reportUnavailable(reply)
        case let refused as LogindBus.RefusedSignal:
            guard let leftOut = messageLog.admit(at: loop.clocks.monotonic.seconds) else { return }
            logger.warning(
                "a signal that is not logind's was ignored", event: "session_signal_refused",
                metadata: [
                    "signal": refused.signal, "sender": refused.sender, "reason": refused.reason.rawValue,
                    "messages.left_out": String(leftOut),
                ])
        case let malformed as LogindBus.MalformedMessage:
            guard let leftOut = messageLog.admit(at: loop.clocks.monotonic.seconds) else { return }
            logger.warning(
                "a message from logind did not parse; ignored", event: "session_message_malformed", error: malformed,
                metadata: ["messages.left_out": String(leftOut)])
        default:
            // The connection is gone (the bus daemon stopped, or a new connection's
            // handshake failed): nothing logind says can be heard now.
            bus?.close()
            bus = nil
            if logindAnswered {
                logindAnswered = false
                logger.warning(
                    "lost the system bus: locking, as no session lock can be heard; reaching for it again",
                    event: "session_bus_lost", error: error)
                perform(watch.observe(.busLost))
            }
            scheduleReconnect()
        }
    }

    private func reportUnavailable(_ error: any Error) {
        guard !reportedUnavailable else { return }
        reportedUnavailable = true
        logger.notice(
            "no system bus, or logind does not answer on it: the device locks only when asked",
            event: "session_bus_unavailable", error: error)
    }
}

/// What the device asks of whoever follows the logind sessions (the ``SessionMonitor``):
/// which sessions it watches, for `GetStatus` and `Monitor` events. Loop only.
protocol SessionFollower: AnyObject {
    /// The watched session ids, or `nil` while none can be followed.
    var watchedSessions: [String]? { get }
}

extension SessionMonitor: SessionFollower {}
