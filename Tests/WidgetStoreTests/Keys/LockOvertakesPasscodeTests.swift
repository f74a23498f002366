import Foundation
import Testing
import WidgetModel
import WidgetdPOSIX
@testable import StoreKeys
@testable import WidgetStore

/// A Lock wins over every passcode operation begun before it (issue 13, defect 1): after
/// `lock` the device stays locked, whatever unlock was being derived meanwhile. Driven
/// through the begin → derive → finish split the daemon uses, so the interleaving is exact.
@Suite struct LockOvertakesPasscodeRules {
    /// A store with passcode "1234", unlocked once and locked again, one timeline per class.
    private func lockedStore(_ f: Fixture, grace: Double = 10) throws -> TimelineStore {
        var configuration = StoreConfiguration.test
        configuration.classAGrace = grace
        let store = try f.open(configuration)
        try putOnePerClass(store)
        try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        store.lock(now: .at(t0))
        store.advance(to: .at(t0.addingTimeInterval(grace)))
        return store
    }

    @Test func aRightUnlockOvertakenByALockIsRefusedAndNotCounted() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        let derivation = try store.beginUnlock(now: .at(t0))
        store.lock(now: .at(t0.addingTimeInterval(1)))
        let derived = try derivation.derive(secure("1234"))
        #expect(throws: StoreError.unlockInterrupted) { try store.finishUnlock(derived, now: .at(t0.addingTimeInterval(2))) }
        #expect(store.deviceState == .locked)
        for c in [ProtectionClass.complete, .completeUnlessOpen] { #expect(!store.isKeyAvailable(c)) }
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetA, allowOpenClassB: true) }
        #expect(store.failedAttempts == 0)
        #expect(try f.open().failedAttempts == 0)
        // A new unlock, begun after the lock, goes through.
        try store.unlock(passcode: secure("1234"), now: .at(t0.addingTimeInterval(3)))
        #expect(store.deviceState == .unlocked)
    }

    @Test func aRightUnlockOvertakenWhileUnlockedIsRefusedAndTheLockHolds() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        // Unlocked: the unlock begins (a no-op), a lock overtakes it.
        let derivation = try store.beginUnlock(now: .at(t0))
        store.lock(now: .at(t0.addingTimeInterval(1)))
        let derived = try derivation.derive(secure("1234"))
        #expect(throws: StoreError.unlockInterrupted) { try store.finishUnlock(derived, now: .at(t0.addingTimeInterval(2))) }
        #expect(store.deviceState == .locked)
        #expect(!store.isKeyAvailable(.completeUnlessOpen))
        // The class-A purge the lock scheduled is still due.
        #expect(store.nextDeadline == ClockReading.at(t0.addingTimeInterval(11)).monotonic)
    }

    @Test func aWrongUnlockOvertakenByALockIsStillCounted() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        let derivation = try store.beginUnlock(now: .at(t0))
        store.lock(now: .at(t0))
        let derived = try derivation.derive(secure("0000"))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.finishUnlock(derived, now: .at(t0))
        }
        #expect(try f.open().failedAttempts == 1)
        #expect(store.deviceState == .locked)
    }

    @Test func anUnlockQueuedBeforeALockIsRefusedThoughItBeginsAfter() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        // The daemon notes the epoch when the call arrives and begins it later, in its turn.
        let arrived = store.lockEpoch
        store.lock(now: .at(t0))
        let right = try store.beginUnlock(now: .at(t0), lockEpoch: arrived).derive(secure("1234"))
        #expect(throws: StoreError.unlockInterrupted) { try store.finishUnlock(right, now: .at(t0)) }
        let wrong = try store.beginUnlock(now: .at(t0), lockEpoch: arrived).derive(secure("0000"))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) { try store.finishUnlock(wrong, now: .at(t0)) }
        #expect(store.deviceState == .locked)
    }

    @Test func withoutPasscodeAnUnlockOvertakenByALockIsRefusedToo() throws {
        let f = Fixture()
        let store = try f.open()
        let derivation = try store.beginUnlock(now: .at(t0))
        store.lock(now: .at(t0))
        let derived = try derivation.derive(secure(""))
        #expect(throws: StoreError.unlockInterrupted) { try store.finishUnlock(derived, now: .at(t0)) }
        #expect(store.deviceState == .locked)
    }

    // MARK: SetPasscode overtaken by a Lock: applied, as if it had finished just before the Lock.

    @Test func aPasscodeSetOvertakenByALockAppliesAndTheLockRulesRunFromTheLock() throws {
        let f = Fixture()
        var configuration = StoreConfiguration.test
        configuration.classAGrace = 10
        let store = try f.open(configuration)
        try putOnePerClass(store)
        let change = try store.beginSetPasscode(hasCurrent: false, hasNew: true, now: .at(t0))
        store.lock(now: .at(t0.addingTimeInterval(1)))
        let derived = try change.derive(current: nil, new: secure("1234"))
        try store.finishSetPasscode(derived, now: .at(t0.addingTimeInterval(3)))
        #expect(store.passcodeSet)
        #expect(store.deviceState == .locked)
        // B at once; A ClassAGraceSec after the lock, not after the set.
        #expect(!store.isKeyAvailable(.completeUnlessOpen))
        #expect(store.isKeyAvailable(.complete))
        #expect(store.nextDeadline == ClockReading.at(t0.addingTimeInterval(11)).monotonic)
        store.advance(to: .at(t0.addingTimeInterval(11)))
        #expect(!store.isKeyAvailable(.complete))
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetA, allowOpenClassB: true) }
        try store.unlock(passcode: secure("1234"), now: .at(t0.addingTimeInterval(12)))
        #expect(text(try store.readBody(widgetA, allowOpenClassB: false)) == "body of \(widgetA)")
    }

    @Test func aPasscodeSetThatFinishesAfterTheGracePurgesClassAAtOnce() throws {
        let f = Fixture()
        var configuration = StoreConfiguration.test
        configuration.classAGrace = 10
        let store = try f.open(configuration)
        try putOnePerClass(store)
        let change = try store.beginSetPasscode(hasCurrent: false, hasNew: true, now: .at(t0))
        store.lock(now: .at(t0))
        let derived = try change.derive(current: nil, new: secure("1234"))
        try store.finishSetPasscode(derived, now: .at(t0.addingTimeInterval(30)))
        #expect(store.deviceState == .locked)
        #expect(!store.isKeyAvailable(.completeUnlessOpen))
        #expect(!store.isKeyAvailable(.complete))
        #expect(store.nextDeadline == nil)
    }

    @Test func aPasscodeChangeOvertakenByALockAppliesAndTheDeviceStaysLocked() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        let change = try store.beginSetPasscode(hasCurrent: true, hasNew: true, now: .at(t0))
        store.lock(now: .at(t0.addingTimeInterval(1)))
        try store.finishSetPasscode(try change.derive(current: secure("1234"), new: secure("5678")), now: .at(t0.addingTimeInterval(2)))
        #expect(store.deviceState == .locked)
        #expect(!store.isKeyAvailable(.completeUnlessOpen))
        #expect(store.nextDeadline == ClockReading.at(t0.addingTimeInterval(11)).monotonic)
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: secure("1234"), now: .at(t0.addingTimeInterval(3)))
        }
        try store.unlock(passcode: secure("5678"), now: .at(t0.addingTimeInterval(3)))
        #expect(store.deviceState == .unlocked)
    }

    @Test func aWrongCurrentPasscodeOvertakenByALockIsStillCounted() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        let change = try store.beginSetPasscode(hasCurrent: true, hasNew: true, now: .at(t0))
        store.lock(now: .at(t0))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.finishSetPasscode(try change.derive(current: secure("0000"), new: secure("5678")), now: .at(t0))
        }
        #expect(store.deviceState == .locked)
    }

    @Test func aPasscodeRemovalOvertakenByALockAppliesAndTheDeviceStaysLocked() throws {
        let f = Fixture()
        let store = try lockedStore(f)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        let change = try store.beginSetPasscode(hasCurrent: true, hasNew: false, now: .at(t0))
        store.lock(now: .at(t0.addingTimeInterval(1)))
        try store.finishSetPasscode(try change.derive(current: secure("1234"), new: nil), now: .at(t0.addingTimeInterval(2)))
        // No passcode: no data protection (DESIGN §3), but the state the Lock set stays.
        #expect(!store.passcodeSet)
        #expect(store.deviceState == .locked)
    }
}
