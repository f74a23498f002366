import Foundation
import Glibc
import Testing

/// DESIGN §8: widgetd follows logind. A private `dbus-daemon` plays the system bus, with a
/// fake logind on it (`FakeLogind`), so every signal is raised here, `PrepareForSleep`
/// included, which no container can raise.
@Suite(.enabled(if: FakeLogind.isAvailable, "needs dbus-daemon (Debian's dbus)"))
struct SessionLockTests {
    let health = "com.example.health/rings"
    let mail = "com.example.mail/inbox"
    /// The session every test starts with: seat0's active one (what the system instance,
    /// root in CI, watches) and the test user's (what a user instance watches).
    static let first = FakeLogind.Session(id: "3", uid: getuid())
    static let second = FakeLogind.Session(id: "9", uid: getuid())

    /// A daemon on `logind`'s bus, unlocked with a passcode, watching session 3.
    private func unlockedDaemon(
        on logind: FakeLogind, session: [String] = [], daemon: [String] = [], user: (uid: UInt32, gid: UInt32)? = nil,
        watching expected: [String] = ["3"]
    ) throws -> DaemonProcess {
        let process = try DaemonProcess(daemon: daemon, session: session)
        try process.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address], user: user)
        let client = try process.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(health))
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(mail))
        try waitForSessions(process, expected)
        return process
    }

    /// Waits until `GetStatus.sessions` is `expected`: logind's answer has been handled.
    private func waitForSessions(_ daemon: DaemonProcess, _ expected: [String]) throws {
        let client = try daemon.client()
        for _ in 0..<500 {
            if try client.ok("io.widgetd.Device.GetStatus")["sessions"] as? [String] == expected { return }
            usleep(10_000)
        }
        throw DaemonProcess.Failure(description: "sessions never became \(expected): \(daemon.log)")
    }

    private func state(_ daemon: DaemonProcess) throws -> String? {
        try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] as? String
    }

    /// Waits until the daemon is locked (a signal is handled soon, not within the call).
    private func waitForLocked(_ daemon: DaemonProcess) throws {
        for _ in 0..<500 {
            if try state(daemon) == "locked" { return }
            usleep(10_000)
        }
        throw DaemonProcess.Failure(description: "never locked: \(daemon.log)")
    }

    /// Every signal logind sent before this one has been handled once it returns.
    private func barrier(_ logind: FakeLogind, _ daemon: DaemonProcess, expecting expected: [String]) throws {
        logind.addActiveSession(Self.second)
        try waitForSessions(daemon, expected)
    }

    /// What a root test daemon (the system instance) watches after the barrier: seat0's active session.
    private var afterBarrier: [String] { getuid() == 0 ? ["9"] : ["3", "9"] }

    @Test func aWatchedSessionsLockSignalLocksAndAWatchingHostGetsPlaceholders() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind)
        let host = try daemon.client()
        try host.send("io.widgetd.Host.Watch", ["widget": health, "surface": "homeScreen"], more: true)
        #expect(Fixtures.mode(try host.receive().parameters) == "content")

        logind.lockSession("3")
        #expect(Fixtures.mode(try host.receive().parameters) == "placeholder")
        #expect(try state(daemon) == "locked")
        #expect(daemon.log.contains("session_lock"))
    }

    @Test func lockedHintBecomingTrueLocks() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind)
        logind.setLockedHint("3", false)
        try barrier(logind, daemon, expecting: afterBarrier)
        #expect(try state(daemon) == "unlocked")
        // Session 9 is watched now in either scope (seat0's active one, and the user's).
        logind.setLockedHint("9", true)
        try waitForLocked(daemon)
    }

    @Test func prepareForSleepLocksAndPurgesClassesAAndBAtOnce() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        // A grace of an hour: only the sleep rule can purge class A now.
        let daemon = try unlockedDaemon(on: logind, daemon: ["ClassAGraceSec=1h"])
        let client = try daemon.client()
        logind.prepareForSleep(false)
        try barrier(logind, daemon, expecting: afterBarrier)
        #expect(try state(daemon) == "unlocked")

        logind.prepareForSleep(true)
        try waitForLocked(daemon)
        let status = try client.ok("io.widgetd.Device.GetStatus")
        let available = Dictionary(uniqueKeysWithValues: (status["classes"] as? [[String: Any]] ?? []).map {
            ($0["class"] as? String ?? "", $0["keyAvailable"] as? Bool ?? true)
        })
        #expect(available["complete"] == false)
        #expect(available["completeUnlessOpen"] == false)
        // Within the grace an ordinary lock leaves A readable, and an open B timeline
        // stays readable to its provider: before sleep neither does.
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": health]).error
            == "io.widgetd.ProtectedDataUnavailable")
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": mail]).error
            == "io.widgetd.ProtectedDataUnavailable")
        #expect(daemon.log.contains("sleep_lock"))
    }

    @Test func anOrdinaryLockWithinTheGraceKeepsClassAAndOpenClassBReadable() throws {
        // The contrast to the sleep rule, on the same daemon setup.
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind, daemon: ["ClassAGraceSec=1h"])
        let client = try daemon.client()
        logind.lockSession("3")
        try waitForLocked(daemon)
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": health]).error == nil)
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": mail]).error == nil)
    }

    @Test func theEndOfTheLastWatchedSessionLocks() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind)
        logind.removeSession("3")
        try waitForLocked(daemon)
        #expect(daemon.log.contains("session_end_lock"))
        try waitForSessions(daemon, [])
    }

    @Test(.enabled(if: getuid() == 0, "runs the daemon as another user (setpriv)"))
    func aUserInstanceWatchesEverySessionOfItsUserAndLocksWhenTheLastEnds() throws {
        let nobody: (uid: UInt32, gid: UInt32) = (65534, 65534)
        let logind = try FakeLogind(
            sessions: [.init(id: "4", uid: nobody.uid), .init(id: "5", uid: nobody.uid), .init(id: "6", uid: 0)],
            active: "6")
        let daemon = try unlockedDaemon(on: logind, user: nobody, watching: ["4", "5"])
        logind.removeSession("4")
        try waitForSessions(daemon, ["5"])
        #expect(try state(daemon) == "unlocked")
        logind.lockSession("5")
        try waitForLocked(daemon)
        try daemon.client().ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        logind.removeSession("5")
        try waitForLocked(daemon)
    }

    @Test func losingTheSystemBusLocksAndTheSessionIsFollowedAgainOnceItIsBack() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind)
        logind.stopBus()
        // No lock could be heard any more: fail closed.
        try waitForLocked(daemon)
        #expect(daemon.log.contains("session_bus_lost"))
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["lockedBy"] as? String == "session")

        try logind.startBus()
        // Reached for again (the first retry comes after a second) and followed as before.
        try waitForSessions(daemon, ["3"])
        #expect(daemon.log.contains("session_bus_reconnected"))
        try daemon.client().ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        logind.lockSession("3")
        try waitForLocked(daemon)
    }

    @Test func aSessionUnlockReleasesNoKey() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind)
        logind.lockSession("3")
        try waitForLocked(daemon)
        logind.unlockSession("3")
        logind.setLockedHint("3", false)
        try barrier(logind, daemon, expecting: afterBarrier)
        #expect(try state(daemon) == "locked")
        #expect(daemon.log.contains("session_unlocked"))
    }

    @Test func listedSessionIDsAreWatchedAndNoOther() throws {
        let logind = try FakeLogind(sessions: [Self.first, .init(id: "5", uid: 0)], active: "3")
        let daemon = try unlockedDaemon(on: logind, session: ["Sessions=5 9"], watching: ["5"])
        logind.lockSession("3")
        try barrier(logind, daemon, expecting: ["5", "9"])
        #expect(try state(daemon) == "unlocked")
        logind.lockSession("5")
        try waitForLocked(daemon)
    }

    @Test func aLockSignalFromAnotherBusClientThanLogindIsIgnored() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind)
        try logind.forgeLock("3")
        try barrier(logind, daemon, expecting: afterBarrier)
        #expect(try state(daemon) == "unlocked")
    }

    // MARK: Only logind speaks for logind

    /// widgetd's process id, which any client can match to its unique bus name.
    private func pid(_ daemon: DaemonProcess) throws -> pid_t {
        guard let process = daemon.process else { throw DaemonProcess.Failure(description: "not started") }
        return process.processIdentifier
    }

    /// Sessions 3 and 9 listed: the barrier's session 9 joins session 3 in every scope.
    static let listedSessions = ["Sessions=3 9"]

    /// A local attacker (nobody) addresses each forgery the issue names to widgetd's unique
    /// name, which the stock bus policy delivers, and the bus driver's signal that logind
    /// is gone: nothing changes, and logind's own lock of session 3 still locks (it was
    /// not dropped from the watch, and logind is still heard).
    @Test(
        .enabled(if: getuid() == 0, "the attacker runs as nobody (setpriv)"),
        arguments: [FakeLogind.Forgery.lock, .sleep, .sessionRemoved, .closing, .ownerGone])
    func aSignalForgedToWidgetdsUniqueNameIsRefusedAndLogindIsStillFollowed(_ forgery: FakeLogind.Forgery) throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        // An hour's grace: only the sleep rule could purge class A now.
        let daemon = try unlockedDaemon(on: logind, session: Self.listedSessions, daemon: ["ClassAGraceSec=1h"])
        try logind.forge(forgery, session: "3", to: try pid(daemon))
        try barrier(logind, daemon, expecting: ["3", "9"])
        #expect(try state(daemon) == "unlocked")
        #expect(try daemon.client().call("io.widgetd.Provider.GetTimeline", ["widget": health]).error == nil)
        #expect(daemon.log.contains("event=session_signal_refused"))
        #expect(daemon.log.contains(forgery == .ownerGone ? "reason=notTheBusDriver" : "reason=addressed"))
        logind.lockSession("3")
        try waitForLocked(daemon)
    }

    /// Refusals are logged at a bounded rate: at most 10 lines a minute (the first ten,
    /// then one saying how many were left out), so a flood cannot fill the journal.
    @Test(.enabled(if: getuid() == 0, "the attacker runs as nobody (setpriv)"))
    func aThousandForgedMalformedSignalsWriteABoundedNumberOfLogLines() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind, session: Self.listedSessions)
        let started = Date()
        try logind.forge(.malformed, session: "3", to: try pid(daemon), count: 1000)
        try barrier(logind, daemon, expecting: ["3", "9"])
        // A slow machine may span more than one minute: each started minute allows ten more.
        let minutes = Int(Date().timeIntervalSince(started) / 60) + 1
        let lines = daemon.log.split(separator: "\n").filter {
            $0.contains("session_signal_refused") || $0.contains("session_message_malformed")
        }
        #expect(!lines.isEmpty)
        #expect(lines.count <= 10 * minutes)
        #expect(try state(daemon) == "unlocked")
    }

    /// logind restarting: a new connection is not logind until the bus driver says it owns
    /// the name, and the old one stops being logind when the driver says it lost it. Both
    /// address a `Lock` to widgetd, one before the hand-over, one after: neither counts;
    /// the new owner is followed (its `SessionNew` and `Lock` count).
    @Test(.enabled(if: getuid() == 0, "the attacker finding widgetd's name runs as nobody (setpriv)"))
    func whenLogindRestartsOnlyTheNewOwnerIsHeard() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind, session: Self.listedSessions)
        let widgetd = try logind.forge(.lock, session: "3", to: try pid(daemon), count: 0)
        try logind.connectSuccessor()
        try logind.unicastLock("3", from: .successor, to: widgetd)
        try logind.handOverToSuccessor()
        try logind.unicastLock("3", from: .retired, to: widgetd)
        // Even the owner's signals count only as broadcasts.
        try logind.unicastLock("3", from: .owner, to: widgetd)
        try barrier(logind, daemon, expecting: ["3", "9"])
        #expect(try state(daemon) == "unlocked")
        logind.lockSession("3")
        try waitForLocked(daemon)
    }

    /// Each `[Session]` source switched off, and the signal it would follow.
    enum Source: String, CaseIterable {
        case lockOnSessionLock = "LockOnSessionLock=no"
        case lockOnSleep = "LockOnSleep=no"
        case lockOnSessionEnd = "LockOnSessionEnd=no"
    }

    @Test(arguments: Source.allCases)
    func eachSourceSwitchedOffIsIgnored(_ source: Source) throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind, session: [source.rawValue])
        switch source {
        case .lockOnSessionLock:
            logind.lockSession("3")
            logind.setLockedHint("3", true)
        case .lockOnSleep:
            logind.prepareForSleep(true)
        case .lockOnSessionEnd:
            logind.removeSession("3")
        }
        try barrier(logind, daemon, expecting: source == .lockOnSessionEnd ? ["9"] : afterBarrier)
        #expect(try state(daemon) == "unlocked")
    }

    @Test func aReloadAppliesChangedSessionOptions() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try unlockedDaemon(on: logind, session: ["LockOnSessionLock=no"])
        let text = try String(contentsOf: daemon.configFile, encoding: .utf8)
        try text.replacingOccurrences(of: "LockOnSessionLock=no", with: "LockOnSessionLock=yes")
            .write(to: daemon.configFile, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForNotification("READY=1")
        // The monitor started over: it watches session 3 again once logind answered.
        try waitForSessions(daemon, ["3"])
        logind.lockSession("3")
        try waitForLocked(daemon)
    }

    @Test func withEverySourceOffTheBusIsNotUsed() throws {
        let logind = try FakeLogind(sessions: [Self.first], active: "3")
        let daemon = try DaemonProcess(session: Source.allCases.map(\.rawValue))
        try daemon.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address])
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["sessions"] == nil)
    }
}

/// Without a system bus (a container without D-Bus) widgetd says so once and serves.
@Suite struct SessionBusAbsentTests {
    @Test func withoutASystemBusTheDaemonSaysSoOnceAndServes() throws {
        let daemon = try DaemonProcess()
        try daemon.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(daemon.root.path)/no-bus"])
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Device.Lock")
        try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        let status = try client.ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "unlocked")
        #expect(status["sessions"] == nil)
        #expect(daemon.log.components(separatedBy: "session_bus_unavailable").count - 1 == 1)
    }
}
