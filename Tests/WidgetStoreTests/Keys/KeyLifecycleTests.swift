import Foundation
import Testing
import WidgetModel
import WidgetdPOSIX
@testable import StoreKeys
@testable import WidgetStore

/// The key-lifecycle rules of DESIGN §3, one test per rule, with an injected clock.
@Suite struct KeyLifecycleRules {
    @Test func freshStoreWithoutPasscodeIsUnlockedWithEveryKey() throws {
        let f = Fixture()
        let store = try f.open()
        #expect(store.deviceState == .unlocked)
        #expect(!store.passcodeSet)
        for c in ProtectionClass.allCases { #expect(store.isKeyAvailable(c)) }
    }

    @Test func reopenedStoreIsBeforeFirstUnlockAndOnlyClassDOpens() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try putOnePerClass(store)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try f.open()
        #expect(store.deviceState == .beforeFirstUnlock)
        #expect(store.passcodeSet)
        #expect(text(try store.readBody(widgetD, allowOpenClassB: true)) == "body of \(widgetD)")
        for w in [widgetA, widgetB, widgetC] {
            #expect(!store.isKeyAvailable(classOf[w]!))
            #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(w, allowOpenClassB: true) }
        }
        // Listing and placeholders work in every state.
        #expect(try store.listTimelines().map(\.widget) == [widgetA, widgetD, widgetB, widgetC].sorted())
        #expect(try store.metadata(widgetA)?.placeholder == Array("ph \(widgetA)".utf8))
    }

    @Test func unlockReleasesClassesABC() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try putOnePerClass(store)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try f.open()
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(store.deviceState == .unlocked)
        for (w, c) in classOf {
            #expect(store.isKeyAvailable(c))
            #expect(text(try store.readBody(w, allowOpenClassB: false)) == "body of \(w)")
        }
    }

    /// A store with a passcode, unlocked, holding one timeline per class, all cached.
    private func unlockedWithCachedTimelines(_ f: Fixture, grace: Double = 10) throws -> TimelineStore {
        var configuration = StoreConfiguration.test
        configuration.classAGrace = grace
        do {
            let store = try f.open(configuration)
            try putOnePerClass(store)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try f.open(configuration)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        for w in classOf.keys { _ = try store.readBody(w, allowOpenClassB: false) }
        for w in classOf.keys { #expect(store.isCached(w)) }
        return store
    }

    @Test func lockZeroesClassBAtOnceAndClassAOnlyAfterGrace() throws {
        let f = Fixture()
        let store = try unlockedWithCachedTimelines(f)
        store.lock(now: .at(t0))
        #expect(store.deviceState == .locked)
        #expect(!store.isKeyAvailable(.completeUnlessOpen))
        #expect(store.isKeyAvailable(.complete))
        #expect(store.nextDeadline == ClockReading.at(t0.addingTimeInterval(10)).monotonic)
        store.advance(to: .at(t0.addingTimeInterval(9.9)))
        #expect(store.isKeyAvailable(.complete))
        #expect(text(try store.readBody(widgetA, allowOpenClassB: false)) == "body of \(widgetA)")
        store.advance(to: .at(t0.addingTimeInterval(10)))
        #expect(!store.isKeyAvailable(.complete))
        #expect(!store.isCached(widgetA))
        #expect(store.nextDeadline == nil)
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetA, allowOpenClassB: false) }
        // C and D stay until the process ends.
        #expect(store.isKeyAvailable(.completeUntilFirstUserAuthentication) && store.isKeyAvailable(.none))
        #expect(text(try store.readBody(widgetC, allowOpenClassB: false)) == "body of \(widgetC)")
    }

    @Test func zeroGracePurgesClassAAtLock() throws {
        let f = Fixture()
        let store = try unlockedWithCachedTimelines(f, grace: 0)
        store.lock(now: .at(t0))
        #expect(!store.isKeyAvailable(.complete))
        #expect(!store.isCached(widgetA))
        #expect(store.nextDeadline == nil)
    }

    @Test func unlockDuringGraceCancelsTheClassAPurge() throws {
        let f = Fixture()
        let store = try unlockedWithCachedTimelines(f)
        store.lock(now: .at(t0))
        try store.unlock(passcode: secure("1234"), now: .at(t0.addingTimeInterval(5)))
        #expect(store.nextDeadline == nil)
        store.advance(to: .at(t0.addingTimeInterval(60)))
        #expect(store.isKeyAvailable(.complete))
        #expect(store.isCached(widgetA))
    }

    @Test func openClassBTimelineStaysReadableAfterLockAndAnUnopenedOneDoesNot() throws {
        let f = Fixture()
        let other = widget("com.example.mail/unread")
        do {
            let store = try f.open()
            try putOnePerClass(store)
            try store.putTimeline(other, protectionClass: .completeUnlessOpen, family: nil, reloadDue: nil, body: secure("unread"), placeholder: nil)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try f.open()
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        _ = try store.readBody(widgetB, allowOpenClassB: false)  // opened while unlocked
        store.lock(now: .at(t0))
        #expect(text(try store.readBody(widgetB, allowOpenClassB: true)) == "body of \(widgetB)")
        // Open only to its provider.
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetB, allowOpenClassB: false) }
        // Never opened since the restart: its plaintext does not exist, the key is gone.
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(other, allowOpenClassB: true) }
        // Closing ends it.
        store.closeTimeline(widgetB)
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetB, allowOpenClassB: true) }
    }

    /// DESIGN §8: before sleep, A goes without its grace and B without its open timelines,
    /// also on a device locked already; C and D stay.
    @Test func aLockBeforeSleepPurgesClassesAAndBAtOnceOpenOnesToo() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try putOnePerClass(store)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        for alreadyLocked in [false, true] {
            let store = try f.open()
            try store.unlock(passcode: secure("1234"), now: .at(t0))
            for w in [widgetA, widgetB, widgetC] { _ = try store.readBody(w, allowOpenClassB: false) }
            if alreadyLocked { store.lock(now: .at(t0)) }
            store.lock(now: .at(t0), purgeAtOnce: true)
            #expect(!store.isKeyAvailable(.complete))
            #expect(!store.isKeyAvailable(.completeUnlessOpen))
            #expect(store.isKeyAvailable(.completeUntilFirstUserAuthentication))
            #expect(store.nextDeadline == nil)
            #expect(!store.isCached(widgetA))
            #expect(!store.isOpen(widgetB))
            #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetA, allowOpenClassB: true) }
            #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetB, allowOpenClassB: true) }
            #expect(text(try store.readBody(widgetC, allowOpenClassB: false)) == "body of \(widgetC)")
        }
    }

    @Test func classBWrittenWhileLockedStaysReadableToItsProvider() throws {
        let f = Fixture()
        let store = try unlockedWithCachedTimelines(f)
        store.lock(now: .at(t0))
        try store.putTimeline(widgetB, protectionClass: .completeUnlessOpen, family: nil, reloadDue: nil, body: secure("new mail"), placeholder: nil)
        #expect(text(try store.readBody(widgetB, allowOpenClassB: true)) == "new mail")
    }

    @Test func evictedClassBTimelineIsNoLongerOpen() throws {
        let f = Fixture()
        var configuration = StoreConfiguration.test
        configuration.maxCachedTimelines = 2
        let store = try f.open(configuration)
        try store.setPasscode(current: nil, new: secure("1"), now: .at(t0))
        let ids = (1...3).map { widget("com.example.mail/box\($0)") }
        for w in ids {
            try store.putTimeline(w, protectionClass: .completeUnlessOpen, family: nil, reloadDue: nil, body: secure("\(w)"), placeholder: nil)
        }
        store.lock(now: .at(t0))
        #expect(!store.isCached(ids[0]))
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(ids[0], allowOpenClassB: true) }
        #expect(text(try store.readBody(ids[2], allowOpenClassB: true)) == "\(ids[2])")
    }

    @Test func classAWrittenWhileLockedIsUnreadableUntilUnlockAndCorrectAfter() throws {
        let f = Fixture()
        let store = try unlockedWithCachedTimelines(f)
        store.lock(now: .at(t0))
        store.advance(to: .at(t0.addingTimeInterval(10)))
        try store.putTimeline(widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("new balance"), placeholder: nil)
        #expect(!store.isCached(widgetA))
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetA, allowOpenClassB: true) }
        try store.unlock(passcode: secure("1234"), now: .at(t0.addingTimeInterval(20)))
        #expect(text(try store.readBody(widgetA, allowOpenClassB: false)) == "new balance")
    }

    @Test func classAWrittenDuringGraceIsNotCached() throws {
        let f = Fixture()
        let store = try unlockedWithCachedTimelines(f)
        store.lock(now: .at(t0))
        try store.putTimeline(widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("x"), placeholder: nil)
        #expect(!store.isCached(widgetA))
    }

    @Test(arguments: [DeviceState.beforeFirstUnlock, .locked])
    func everyClassIsWritableInEveryState(_ state: DeviceState) throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try f.open()
        if state == .locked {
            try store.unlock(passcode: secure("1234"), now: .at(t0))
            store.lock(now: .at(t0))
            store.advance(to: .at(t0.addingTimeInterval(3600)))
        }
        #expect(store.deviceState == state)
        try putOnePerClass(store)
        let reopened = try f.open()
        try reopened.unlock(passcode: secure("1234"), now: .at(t0))
        for w in classOf.keys { #expect(text(try reopened.readBody(w, allowOpenClassB: false)) == "body of \(w)") }
    }

    @Test func withoutPasscodeLockOnlyChangesTheState() throws {
        let f = Fixture()
        let store = try f.open()
        try putOnePerClass(store)
        store.lock(now: .at(t0))
        #expect(store.deviceState == .locked)
        store.advance(to: .at(t0.addingTimeInterval(3600)))
        for c in ProtectionClass.allCases { #expect(store.isKeyAvailable(c)) }
        try store.unlock(passcode: secure("anything"), now: .at(t0))
        #expect(store.deviceState == .unlocked)
    }
}

/// Purged class secrets are zeroed, not merely forgotten.
@Suite struct KeyZeroingRules {
    @Test func lockZeroesTheClassBSecretAtOnceAndTheClassASecretAfterGrace() throws {
        let f = Fixture()
        let store = try f.open()
        try store.setPasscode(current: nil, new: secure("1"), now: .at(t0))
        let a = try #require(store.heldKeyPair(.complete)).secretKey
        let b = try #require(store.heldKeyPair(.completeUnlessOpen)).secretKey
        let c = try #require(store.heldKeyPair(.completeUntilFirstUserAuthentication)).secretKey
        #expect(a.count == 32 && b.count == 32)
        store.lock(now: .at(t0))
        #expect(b.count == 0)
        #expect(a.count == 32)
        store.advance(to: .at(t0.addingTimeInterval(10)))
        #expect(a.count == 0)
        #expect(c.count == 32)
    }

    @Test func derivationRunsOffTheOwnerThread() async throws {
        let f = Fixture()
        do { try f.open().setPasscode(current: nil, new: secure("1234"), now: .at(t0)) }
        let store = try f.open()
        let derivation = try store.beginUnlock(now: .at(t0))
        let passcode = secure("1234")
        let derived = try await Task.detached { try derivation.derive(passcode) }.value
        try store.finishUnlock(derived, now: .at(t0))
        #expect(store.deviceState == .unlocked)
    }
}
