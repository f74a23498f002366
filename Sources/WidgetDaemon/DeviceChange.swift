import FoundationEssentials
import Logging
import StoreKeys
import WidgetModel
import WidgetStore
import WidgetdWire

/// A change of the device's keys, settings or configuration. Every source (a Varlink
/// call, the key timers, the passcode queue, a reload, logind) hands one to
/// ``DeviceController/apply(_:answer:)``, so that what must follow a change is written
/// once.
enum DeviceChange: @unchecked Sendable {
    /// Lock now, for `reason` (class B purged now, A after its grace period). For
    /// `inactivity` (a key timer, `RequirePasscodeAfterSec=` after the lock): classes A,
    /// B and C purged, `beforeFirstUnlock` again.
    case lock(LockReason)
    /// An unlock or a passcode change, derived and its keybag written off the loop
    /// (`written`, `nil` when the judgement writes none): release A, B, C; or the
    /// passcode set, changed or removed; or a wrong passcode counted.
    case passcode(PasscodeJudgement, written: WrittenKeybag?)
    /// A key timer: run the purges due by now (class A after its grace period).
    case purgeDue
    /// Crypto-erase every class.
    case wipe
    /// New settings, validated and already written to the settings file.
    case settings(Settings)
    /// A reloaded configuration: roles, registrations, the store's share.
    case configuration(Authorization, StoreConfiguration)
}

