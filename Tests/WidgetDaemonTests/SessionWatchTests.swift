import Testing
@testable import WidgetDaemon

private let sessionThree = LogindSession(id: "3", path: "/org/freedesktop/login1/session/_33", uid: 1000)
private let sessionOther = LogindSession(id: "7", path: "/org/freedesktop/login1/session/_37", uid: 1001)

/// DESIGN §8's session rules, on the pure decider: what each thing logind says means.
@Suite struct SessionWatchTests {
    static let three = sessionThree
    static let four = LogindSession(id: "4", path: "/org/freedesktop/login1/session/_34", uid: 1000)
    static let other = sessionOther

    /// A user instance of uid 1000 watching sessions 3 and 4 (7 is another user's).
    private func userWatch(_ options: SessionOptions = SessionOptions()) -> SessionWatch {
        var watch = SessionWatch(scope: .sessionsOfUser(1000), options: options)
        _ = watch.observe(.sessionList([Self.three, Self.four, Self.other]))
        return watch
    }

    fileprivate static func off(_ change: (inout SessionOptions) -> Void) -> SessionOptions {
        var options = SessionOptions()
        change(&options)
        return options
    }

    @Test func eachScopeAsksLogindItsOwnFirstQuestion() {
        #expect(SessionWatch(scope: .sessionsOfUser(1000), options: .init()).start() == [.listSessions])
        #expect(SessionWatch(scope: .listed(["3"]), options: .init()).start() == [.listSessions])
        #expect(SessionWatch(scope: .activeSession(seat: "seat0"), options: .init()).start() == [.readActiveSession])
    }

    @Test func autoMeansTheUsersSessionsForAUserInstanceAndSeat0sActiveOneForTheSystem() {
        #expect(SessionMonitor.scope(of: .auto, uid: 1000, systemInstance: false) == .sessionsOfUser(1000))
        #expect(SessionMonitor.scope(of: .auto, uid: 0, systemInstance: true) == .activeSession(seat: "seat0"))
        #expect(SessionMonitor.scope(of: .ids(["3", "5"]), uid: 0, systemInstance: true) == .listed(["3", "5"]))
    }

    @Test func losingTheBusLocksAndWatchesNothingUntilLogindAnswersAgain() {
        var watch = userWatch()
        #expect(watch.observe(.busLost) == [.report(.lock(reason: .session))])
        #expect(watch.watchedIDs.isEmpty)
        // Heard again on a new connection: the fresh answer is what is watched.
        #expect(watch.start() == [.listSessions])
        #expect(watch.observe(.sessionList([Self.three])) == [])
        #expect(watch.watchedIDs == ["3"])
    }

    @Test(arguments: [
        SessionWatchTests.off { $0.lockOnSessionLock = false }, SessionWatchTests.off { $0.lockOnSleep = false },
        SessionWatchTests.off { $0.lockOnSessionEnd = false },
    ])
    func losingTheBusLocksWhileAnySourceIsOn(_ options: SessionOptions) {
        var watch = userWatch(options)
        #expect(watch.observe(.busLost) == [.report(.lock(reason: .session))])
    }

    @Test func aUserInstanceWatchesEverySessionOfItsUidAndNoOther() {
        #expect(userWatch().watchedIDs == ["3", "4"])
    }

    /// What each signal about a watched session or the system does, with every source on.
    @Test(arguments: [
        (SessionWatch.Observation.lock(path: sessionThree.path), [SessionWatch.Effect.report(.lock(reason: .session))]),
        (.lockedHint(path: three.path, true), [.report(.lock(reason: .session))]),
        (.lockedHint(path: three.path, false), []),
        (.unlock(path: three.path), [.unlockReleasesNothing(session: "3")]),
        (.prepareForSleep(true), [.report(.lock(reason: .sleep, purgeAtOnce: true))]),
        (.prepareForSleep(false), []),
        (.lock(path: other.path), []),
        (.lockedHint(path: other.path, true), []),
        (.unlock(path: other.path), []),
        (.sessionRemoved(three), []),
        (.state(path: three.path, "active"), []),
        (.sessionNew(LogindSession(id: "5", path: "/org/freedesktop/login1/session/_35")), [.listSessions]),
        (.logindStarted, [.listSessions]),
    ])
    func whatASignalMeans(_ observation: SessionWatch.Observation, _ effects: [SessionWatch.Effect]) {
        var watch = userWatch()
        #expect(watch.observe(observation) == effects)
    }

    @Test func onlyTheEndOfTheLastWatchedSessionLocks() {
        var watch = userWatch()
        #expect(watch.observe(.sessionRemoved(Self.three)) == [])
        #expect(watch.observe(.sessionRemoved(Self.other)) == [])
        #expect(watch.observe(.state(path: Self.four.path, "closing")) == [.report(.lock(reason: .sessionEnd))])
        #expect(watch.watchedIDs.isEmpty)
        // Nothing left to end.
        #expect(watch.observe(.sessionRemoved(Self.four)) == [])
    }

    @Test func aLastSessionMissingFromAFreshListEnded() {
        var watch = userWatch()
        #expect(watch.observe(.sessionList([Self.other])) == [.report(.lock(reason: .sessionEnd))])
        var empty = SessionWatch(scope: .sessionsOfUser(1000), options: .init())
        // Never had one: nothing ended.
        #expect(empty.observe(.sessionList([])) == [])
    }

    /// Each source off: its signal is ignored, the others still lock.
    @Test(arguments: [
        (SessionWatchTests.off { $0.lockOnSessionLock = false }, SessionWatch.Observation.lock(path: sessionThree.path)),
        (SessionWatchTests.off { $0.lockOnSessionLock = false }, .lockedHint(path: sessionThree.path, true)),
        (SessionWatchTests.off { $0.lockOnSleep = false }, .prepareForSleep(true)),
    ])
    func aSourceSwitchedOffIsIgnored(_ options: SessionOptions, _ observation: SessionWatch.Observation) {
        var watch = userWatch(options)
        #expect(watch.observe(observation) == [])
    }

    @Test func withLockOnSessionEndOffTheLastSessionEndsQuietly() {
        var watch = userWatch(Self.off { $0.lockOnSessionEnd = false })
        #expect(watch.observe(.sessionRemoved(Self.three)) == [])
        #expect(watch.observe(.sessionRemoved(Self.four)) == [])
        #expect(watch.watchedIDs.isEmpty)
        #expect(watch.observe(.prepareForSleep(true)) == [.report(.lock(reason: .sleep, purgeAtOnce: true))])
    }

    @Test func listedIDsAreWatchedWhileLogindHasThem() {
        var watch = SessionWatch(scope: .listed(["4", "9"]), options: .init())
        _ = watch.observe(.sessionList([Self.three, Self.four]))
        #expect(watch.watchedIDs == ["4"])
        #expect(watch.observe(.lock(path: Self.three.path)) == [])
        let nine = LogindSession(id: "9", path: "/org/freedesktop/login1/session/_39")
        #expect(watch.observe(.sessionNew(nine)) == [])
        #expect(watch.watchedIDs == ["4", "9"])
        #expect(watch.observe(.lock(path: nine.path)) == [.report(.lock(reason: .session))])
    }

    @Test func theSystemInstanceFollowsSeat0sActiveSession() {
        var watch = SessionWatch(scope: .activeSession(seat: "seat0"), options: .init())
        #expect(watch.observe(.activeSession(Self.three)) == [])
        #expect(watch.watchedIDs == ["3"])
        #expect(watch.observe(.sessionNew(Self.four)) == [])
        #expect(watch.observe(.seatChanged) == [.readActiveSession])
        // Another session to the front is no end: the one before is just not watched.
        #expect(watch.observe(.activeSession(Self.four)) == [])
        #expect(watch.watchedIDs == ["4"])
        #expect(watch.observe(.lock(path: Self.three.path)) == [])
        #expect(watch.observe(.lock(path: Self.four.path)) == [.report(.lock(reason: .session))])
        #expect(watch.observe(.sessionRemoved(Self.four)) == [.report(.lock(reason: .sessionEnd))])
        #expect(watch.observe(.activeSession(nil)) == [])
        #expect(watch.watchedIDs.isEmpty)
    }
}
