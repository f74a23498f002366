import FoundationEssentials
import SecureMemory
import StoreKeys
import WidgetCrypto
import WidgetModel
import WidgetdPOSIX

/// The store as the daemon's device side sees it (`DeviceController` and what it owns:
/// `PasscodeRequest`, `PasscodeStep`, `StoredSettings`): the keys, passcodes and
/// attempts, the lock state and its deadlines, the settings file, the tunables
/// (settable on SIGHUP) and the wipe. Nothing of timelines: the device side changes
/// which keys are held, the timeline side (`StoreTimelinesFace`) reads and writes what
/// they open, and the compiler keeps each to its own calls. What both read is
/// `StoreSharedFace`, which this refines.
///
/// `TimelineStore` is the one conformer; the members are its own, documented there.
///
/// Threading: the store's thread, as every `TimelineStore` member.
package protocol StoreDeviceFace: StoreSharedFace {
    /// `TimelineStore.configuration`, settable: a SIGHUP's new tunables.
    var configuration: StoreConfiguration { get set }

    // The lock state and its deadlines.
    var lockEpoch: LockEpoch { get }
    var deviceKeyKind: DeviceKeyKind { get }
    var attemptCounting: AttemptCounting { get }
    var failedAttempts: Int { get }
    var isRollbackAnchored: Bool { get }
    var nextDeadline: MonotonicInstant? { get }
    var requirePasscodeDue: BootInstant? { get }
    func retryAfter(now: ClockReading) -> Double?
    func lock(now: ClockReading, purgeAtOnce: Bool)
    func advance(to now: ClockReading)
    func requirePasscode()

    // Unlocking and setting the passcode: begin on the store's thread, derive off it,
    // judge and complete on it again.
    func beginUnlock(now: ClockReading, lockEpoch arrived: LockEpoch?) throws(StoreError) -> PasscodeDerivation
    func judgeUnlock(_ derived: DerivedPasscode, now: ClockReading) throws(StoreError) -> PasscodeJudgement
    func beginSetPasscode(hasCurrent: Bool, hasNew: Bool, now: ClockReading) throws(StoreError) -> PasscodeChange
    func judgeSetPasscode(_ derived: DerivedPasscodeChange, now: ClockReading) throws(StoreError) -> PasscodeJudgement
    func complete(_ judgement: PasscodeJudgement, written: WrittenKeybag?, now: ClockReading) throws(StoreError)
    func loadPasscodeInStep() -> Bool
    func savePasscodeInStep(_ inStep: Bool) throws(StoreError)

    // The settings file.
    var isFresh: Bool { get }
    func loadSettings() throws(StoreError) -> [UInt8]?
    func saveSettings(_ bytes: [UInt8]) throws(StoreError)
    func settingsWrite(_ bytes: [UInt8]) -> SettingsWrite

    /// `TimelineStore.wipe()`: every key and timeline destroyed.
    func wipe() throws(StoreError)
}

extension TimelineStore: StoreDeviceFace {}
