import Foundation
import Testing
import WidgetModel
@testable import StoreKeys
@testable import WidgetStore

/// Passcode rules: failed attempts, Apple's delays, set/change/remove, wipe.
@Suite struct PasscodeRules {
    static let schedule: [(failures: Int, delay: Double)] = [
        (0, 0), (1, 0), (4, 0), (5, 60), (6, 300), (7, 900), (8, 900), (9, 3600), (50, 3600),
    ]

    @Test(arguments: schedule)
    func delayFollowsApplesSchedule(failures: Int, delay: Double) {
        #expect(FailedAttemptPolicy.delay(afterFailures: failures) == delay)
        let wait = FailedAttemptPolicy.retryAfter(failures: failures, lastFailure: t0, now: t0)
        #expect(wait == (delay > 0 ? delay : nil))
    }

    @Test func clockSetBackCannotStretchTheDelay() {
        #expect(FailedAttemptPolicy.retryAfter(failures: 5, lastFailure: t0, now: t0.addingTimeInterval(-1000)) == 60)
    }

    /// A reopened store (before first unlock) with passcode "1234".
    private func lockedStore(_ f: Fixture, _ configuration: StoreConfiguration = .test) throws -> TimelineStore {
        do {
            let store = try f.open(configuration)
            try putOnePerClass(store)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        return try f.open(configuration)
    }

    @Test func wrongPasscodeIsCountedAndTheCountSurvivesReopening() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: secure("0000"), now: .at(t0))
        }
        #expect(store.deviceState == .beforeFirstUnlock)
        #expect(!store.isKeyAvailable(.completeUntilFirstUserAuthentication))
        let reopened = try f.open()
        #expect(reopened.failedAttempts == 1)
        try reopened.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(reopened.failedAttempts == 0)
        #expect(try f.open().failedAttempts == 0)
    }

    @Test func wrongPasscodesAreDelayedOnSchedule() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        for n in 1...4 {
            #expect(throws: StoreError.wrongPasscode(failedAttempts: n, retryAfter: nil)) {
                try store.unlock(passcode: secure("wrong\(n)"), now: .at(t0))
            }
        }
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 5, retryAfter: 60)) {
            try store.unlock(passcode: secure("wrong5"), now: .at(t0))
        }
        // Even the right passcode waits; and the delay survives a restart.
        #expect(throws: StoreError.tryAgainLater(retryAfter: 30)) {
            try store.unlock(passcode: secure("1234"), now: .at(t0.addingTimeInterval(30)))
        }
        #expect(throws: StoreError.tryAgainLater(retryAfter: 30)) {
            try f.open().unlock(passcode: secure("1234"), now: .at(t0.addingTimeInterval(30)))
        }
        #expect(store.retryAfter(now: .at(t0.addingTimeInterval(30))) == 30)
        let t1 = t0.addingTimeInterval(60)
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 6, retryAfter: 300)) {
            try store.unlock(passcode: secure("wrong6"), now: .at(t1))
        }
        try store.unlock(passcode: secure("1234"), now: .at(t1.addingTimeInterval(300)))
        #expect(store.deviceState == .unlocked)
    }

    @Test func sameWrongPasscodeTwiceCountsOnce() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        try? store.unlock(passcode: secure("0000"), now: .at(t0))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: secure("0000"), now: .at(t0))
        }
        // Also across a restart (the tag is in the keybag), but a new wrong one counts.
        let reopened = try f.open()
        try? reopened.unlock(passcode: secure("0000"), now: .at(t0))
        #expect(reopened.failedAttempts == 1)
        try? reopened.unlock(passcode: secure("1111"), now: .at(t0))
        #expect(reopened.failedAttempts == 2)
    }

    @Test func splitUnlockRechecksTheDelayWhenFinishing() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        for n in 1...4 { try? store.unlock(passcode: secure("wrong\(n)"), now: .at(t0)) }
        // Two derivations started while attempts were allowed…
        let first = try store.beginUnlock(now: .at(t0)).derive(secure("wrong5"))
        let second = try store.beginUnlock(now: .at(t0)).derive(secure("1234"))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 5, retryAfter: 60)) { try store.finishUnlock(first, now: .at(t0)) }
        // …the second cannot slip past the delay the first one caused.
        #expect(throws: StoreError.tryAgainLater(retryAfter: 60)) { try store.finishUnlock(second, now: .at(t0)) }
    }

    @Test func wipeAfterTooManyFailedAttempts() throws {
        let f = Fixture()
        var configuration = StoreConfiguration.test
        configuration.wipeAfterFailedAttempts = 3
        let store = try lockedStore(f, configuration)
        let oldFiles = try f.timelineFiles()
        #expect(oldFiles.count == 4)
        try? store.unlock(passcode: secure("a"), now: .at(t0))
        try? store.unlock(passcode: secure("b"), now: .at(t0))
        #expect(throws: StoreError.wiped) { try store.unlock(passcode: secure("c"), now: .at(t0)) }
        #expect(try f.timelineFiles().isEmpty)
        #expect(!store.passcodeSet)
        #expect(store.failedAttempts == 0)
        #expect(try store.listTimelines().isEmpty)
    }

    @Test func changingThePasscodeKeepsEveryTimelineAndTheOldOneFails() throws {
        let f = Fixture()
        do {
            let store = try lockedStore(f)
            try store.setPasscode(current: secure("1234"), new: secure("5678"), now: .at(t0))
            #expect(store.deviceState == .beforeFirstUnlock)
        }
        let store = try f.open()
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: secure("1234"), now: .at(t0))
        }
        try store.unlock(passcode: secure("5678"), now: .at(t0))
        for w in classOf.keys { #expect(text(try store.readBody(w, allowOpenClassB: false)) == "body of \(w)") }
    }

    @Test(arguments: [0, 1000])
    func passcodeChangeRewritesOnlyTheKeybag(timelines: Int) throws {
        let f = Fixture()
        let store = try f.open()
        try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        for i in 0..<timelines {
            try store.putTimeline(
                widget("com.example.bulk/w#\(i)"), protectionClass: ProtectionClass.allCases[i % 4], family: nil,
                reloadDue: nil, body: secure("\(i)"), placeholder: nil)
        }
        try store.foldJournal()
        let before = try f.snapshot()
        // + device.key, keybag, settings, catalog, journal and the space reserve, and the catalog's log once it records a widget
        #expect(before.count == timelines + 6 + (timelines > 0 ? 1 : 0))
        try store.setPasscode(current: secure("1234"), new: secure("5678"), now: .at(t0))
        try store.setPasscode(current: secure("5678"), new: nil, now: .at(t0))
        let after = try f.snapshot()
        #expect(Set(before.keys) == Set(after.keys))
        let changed = before.keys.filter { before[$0]!.inode != after[$0]!.inode || before[$0]!.bytes != after[$0]!.bytes }
        #expect(changed == ["keybag"])
    }

    @Test func removingThePasscodeNeedsTheCurrentOneAndLeavesNoProtection() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        #expect(throws: StoreError.passcodeRequired) { try store.setPasscode(current: nil, new: nil, now: .at(t0)) }
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.setPasscode(current: secure("0000"), new: nil, now: .at(t0))
        }
        #expect(store.passcodeSet)
        try store.setPasscode(current: secure("1234"), new: nil, now: .at(t0))
        #expect(!store.passcodeSet)
        #expect(store.deviceState == .unlocked)
        for w in classOf.keys { #expect(text(try store.readBody(w, allowOpenClassB: false)) == "body of \(w)") }
        let reopened = try f.open()
        #expect(reopened.deviceState == .unlocked)
        #expect(reopened.failedAttempts == 0)
        for w in classOf.keys { #expect(text(try reopened.readBody(w, allowOpenClassB: false)) == "body of \(w)") }
        #expect(throws: StoreError.noPasscodeSet) { try reopened.setPasscode(current: nil, new: nil, now: .at(t0)) }
    }

    @Test func aChangePlannedBeforeAnotherOneTookEffectIsRefusedAndNotCounted() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        let stale = try store.beginSetPasscode(hasCurrent: true, hasNew: true, now: .at(t0))
        try store.setPasscode(current: secure("1234"), new: secure("5678"), now: .at(t0))
        // Derived from the old passcode against the old keybag: it proves nothing now.
        let derived = try stale.derive(current: secure("1234"), new: secure("0000"))
        #expect(throws: StoreError.passcodeRequired) { try store.finishSetPasscode(derived, now: .at(t0)) }
        #expect(store.failedAttempts == 0)
        try store.unlock(passcode: secure("5678"), now: .at(t0))
        #expect(store.deviceState == .unlocked)
    }

    @Test func aChangePlannedWhileNoPasscodeWasSetIsRefusedOnceOneIs() throws {
        let f = Fixture()
        let store = try f.open()
        let planned = try store.beginSetPasscode(hasCurrent: false, hasNew: true, now: .at(t0))
        try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        let derived = try planned.derive(current: nil, new: secure("0000"))
        #expect(throws: StoreError.passcodeRequired) { try store.finishSetPasscode(derived, now: .at(t0)) }
        #expect(store.passcodeSet)
        store.lock(now: .at(t0))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: secure("0000"), now: .at(t0))
        }
    }

    @Test func aPasscodeChangeWaitsOutTheFailedAttemptDelay() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        for attempt in 1...5 {
            #expect(throws: StoreError.self) { try store.unlock(passcode: secure("000\(attempt)"), now: .at(t0)) }
        }
        #expect(throws: StoreError.tryAgainLater(retryAfter: 60)) {
            _ = try store.beginSetPasscode(hasCurrent: true, hasNew: false, now: .at(t0))
        }
        // Planned before the delay began (e.g. while an unlock was being derived): still refused.
        let other = Fixture()
        let reopened = try lockedStore(other)
        let planned = try reopened.beginSetPasscode(hasCurrent: true, hasNew: false, now: .at(t0))
        for attempt in 1...5 {
            #expect(throws: StoreError.self) { try reopened.unlock(passcode: secure("000\(attempt)"), now: .at(t0)) }
        }
        let derived = try planned.derive(current: secure("1234"), new: nil)
        #expect(throws: StoreError.tryAgainLater(retryAfter: 60)) { try reopened.finishSetPasscode(derived, now: .at(t0)) }
        #expect(reopened.passcodeSet)
        try reopened.finishSetPasscode(derived, now: .at(t0.addingTimeInterval(60)))
        #expect(!reopened.passcodeSet)
    }

    @Test func settingAPasscodeWhileLockedAppliesTheLockRules() throws {
        let f = Fixture()
        let store = try f.open()
        try putOnePerClass(store)
        store.lock(now: .at(t0))
        try store.setPasscode(current: nil, new: secure("1"), now: .at(t0))
        #expect(!store.isKeyAvailable(.completeUnlessOpen))
        store.advance(to: .at(t0.addingTimeInterval(10)))
        #expect(!store.isKeyAvailable(.complete))
    }

    @Test func wipeMakesEveryFileUnreadable() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        let saved = try f.timelineFiles().map { ($0, FileManager.default.contents(atPath: $0)!) }
        let oldDeviceKey = FileManager.default.contents(atPath: "\(f.state)/device.key")
        try store.wipe()
        #expect(try f.timelineFiles().isEmpty)
        #expect(FileManager.default.contents(atPath: "\(f.state)/device.key") != oldDeviceKey)
        #expect(!store.passcodeSet && store.deviceState == .unlocked)
        // Restoring the old files (as from a backup) yields nothing readable.
        for (path, bytes) in saved { _ = FileManager.default.createFile(atPath: path, contents: bytes) }
        #expect(try store.listTimelines().isEmpty)
        for w in classOf.keys {
            // File names came from the old device key, so the widgets are simply gone…
            #expect(try store.metadata(w) == nil)
        }
        // …and under the right name a restored file still fails authentication.
        try store.putTimeline(widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("x"), placeholder: nil)
        try store.foldJournal()  // the files, not the journal, are what this test examines
        let newPath = try f.timelineFiles().first { p in !saved.contains { $0.0 == p } }!
        for (_, bytes) in saved {
            _ = FileManager.default.createFile(atPath: newPath, contents: bytes)
            store.closeTimeline(widgetD)
            let reason = corruption { _ = try store.readBody(widgetD, allowOpenClassB: true) }
            #expect(reason == .wrongWidget || reason == .authenticationFailure)
        }
    }
}
