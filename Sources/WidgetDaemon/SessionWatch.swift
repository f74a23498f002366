/// A logind session as the bus names it: its id (`3`, `c1`) and its object path
/// (`/org/freedesktop/login1/session/_33`), which is what its signals carry.
struct LogindSession: Sendable, Equatable {
    /// The session id.
    var id: String
    /// Its object path.
    var path: String
    /// The uid it belongs to, where logind said (`ListSessions`); `nil` otherwise.
    var uid: UInt32?
}

/// Which logind sessions the daemon watches, and what each thing logind says means for
/// the device (DESIGN §8).
///
/// Pure: no bus, no clock. ``SessionMonitor`` feeds it what the bus said
/// (``Observation``) and carries out the ``Effect``s it returns: lock the device, or ask
/// logind again.
struct SessionWatch {
    /// Whose sessions are watched.
    enum Scope: Sendable, Equatable {
        /// A user instance (`Sessions=auto`): every session of this uid.
        case sessionsOfUser(UInt32)
        /// The system instance (`Sessions=auto`): the active session of this seat.
        case activeSession(seat: String)
        /// `Sessions=` ids, while logind has them.
        case listed(Set<String>)
    }

    /// What logind said.
    enum Observation: Sendable, Equatable {
        /// `ListSessions`' answer: every session logind has.
        case sessionList([LogindSession])
        /// The seat's `ActiveSession`; `nil` when none is active.
        case activeSession(LogindSession?)
        /// The seat's properties changed: read `ActiveSession` again.
        case seatChanged
        /// `SessionNew` on the manager.
        case sessionNew(LogindSession)
        /// `SessionRemoved` on the manager.
        case sessionRemoved(LogindSession)
        /// A session's `Lock` signal.
        case lock(path: String)
        /// A session's `Unlock` signal.
        case unlock(path: String)
        /// A session's `LockedHint` changed.
        case lockedHint(path: String, Bool)
        /// A session's `State` changed (`online`, `active`, `closing`).
        case state(path: String, String)
        /// `PrepareForSleep` on the manager: true before sleep, false after.
        case prepareForSleep(Bool)
        /// logind (re)appeared on the bus: what was known may be stale.
        case logindStarted
        /// The connection to the system bus is gone, after logind had answered on it:
        /// from now on no lock, sleep or session end can be heard.
        case busLost
    }

    /// What the monitor must do.
    enum Effect: Sendable, Equatable {
        /// Ask the daemon for this device change.
        case report(SessionEvent)
        /// Call `ListSessions` and observe its answer.
        case listSessions
        /// Read the seat's `ActiveSession` and observe it.
        case readActiveSession
        /// A watched session was unlocked without a password: worth a log line, and nothing else.
        case unlockReleasesNothing(session: String)
    }

    let scope: Scope
    let options: SessionOptions
    /// The watched sessions by object path.
    private(set) var watched: [String: LogindSession] = [:]

    /// Watches nothing until logind answers the first question ``start()`` returns.
    init(scope: Scope, options: SessionOptions) {
        self.scope = scope
        self.options = options
    }

    /// The watched session ids, sorted: `GetStatus.sessions`.
    var watchedIDs: [String] { watched.values.map(\.id).sorted() }

    /// What to ask logind first.
    func start() -> [Effect] { [initialQuery] }

    private var initialQuery: Effect {
        switch scope {
        case .sessionsOfUser, .listed: .listSessions
        case .activeSession: .readActiveSession
        }
    }

    /// What `observation` means.
    mutating func observe(_ observation: Observation) -> [Effect] {
        switch (scope, observation) {
        case (_, .prepareForSleep(let sleeping)):
            return sleeping && options.lockOnSleep ? [.report(.lock(reason: .sleep, purgeAtOnce: true))] : []
        case (_, .lock(let path)), (_, .lockedHint(let path, true)):
            return watched[path] != nil && options.lockOnSessionLock ? [.report(.lock(reason: .session))] : []
        case (_, .lockedHint(_, false)):
            // Unlocked without a password as far as widgetd knows: keys need the passcode.
            return []
        case (_, .unlock(let path)):
            return watched[path].map { [.unlockReleasesNothing(session: $0.id)] } ?? []
        case (_, .state(let path, let state)):
            // A session whose processes linger is "closing" until they end; for the user it ended.
            return state == "closing" ? ended(path) : []
        case (_, .sessionRemoved(let session)):
            return ended(session.path)
        case (_, .logindStarted):
            return [initialQuery]
        case (_, .busLost):
            // Fail closed: what the sources on would have locked for can no longer be
            // heard, so lock now (as a session lock: the session is no longer followed).
            // A new connection starts the watch again from logind's answer.
            watched = [:]
            return options.followsSessions ? [.report(.lock(reason: .session))] : []

        case (.sessionsOfUser(let uid), .sessionList(let sessions)):
            return replaceWatched(with: sessions.filter { $0.uid == uid })
        case (.listed(let ids), .sessionList(let sessions)):
            return replaceWatched(with: sessions.filter { ids.contains($0.id) })
        case (.sessionsOfUser, .sessionNew):
            // SessionNew does not say whose it is; ListSessions does.
            return [.listSessions]
        case (.listed(let ids), .sessionNew(let session)):
            if ids.contains(session.id) { watched[session.path] = session }
            return []
        case (.activeSession, .activeSession(let session)):
            // Another session coming to the front is not the end of the one before.
            watched = session.map { [$0.path: $0] } ?? [:]
            return []
        case (.activeSession, .seatChanged):
            return [.readActiveSession]
        case (.activeSession, .sessionNew):
            // A new session watched only once it is the seat's active one.
            return []

        case (.activeSession, .sessionList), (.sessionsOfUser, .activeSession), (.listed, .activeSession),
             (.sessionsOfUser, .seatChanged), (.listed, .seatChanged):
            // Answers to questions this scope never asks.
            return []
        }
    }

    /// A session ended: the end of the last watched one locks.
    private mutating func ended(_ path: String) -> [Effect] {
        guard watched.removeValue(forKey: path) != nil, watched.isEmpty, options.lockOnSessionEnd else { return [] }
        return [.report(.lock(reason: .sessionEnd))]
    }

    /// A fresh list of the watched sessions; if the last watched one is missing from it
    /// (its `SessionRemoved` was missed), that is its end.
    private mutating func replaceWatched(with sessions: [LogindSession]) -> [Effect] {
        let hadSessions = !watched.isEmpty
        watched = Dictionary(sessions.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        return hadSessions && watched.isEmpty && options.lockOnSessionEnd ? [.report(.lock(reason: .sessionEnd))] : []
    }
}
