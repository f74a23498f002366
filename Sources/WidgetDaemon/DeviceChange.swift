import FoundationEssentials
import Logging
import WidgetModel
import WidgetStore
import WidgetdWire

/// A change of the device's keys, settings or configuration. Every source (a Varlink
/// call, the wake timer, the passcode queue, a reload, logind) hands one to
/// ``DeviceController/apply(_:answer:)``, so that what must follow a change is written
/// once.
enum DeviceChange: @unchecked Sendable {
    /// Lock now, for `reason` (class B purged now, A after its grace period). For
    /// `inactivity` (the wake timer, `RequirePasscodeAfterSec=` after the lock): classes A,
    /// B and C purged, `beforeFirstUnlock` again.
    case lock(LockReason)
    /// A passcode verified off the loop (its keys, in secure memory): release A, B, C.
    case unlock(DerivedPasscode)
    /// A passcode set, changed or removed, derived off the loop.
    case passcodeChange(DerivedPasscodeChange)
    /// The wake timer: run the purges due by now (class A after its grace period).
    case purgeDue
    /// Crypto-erase every class.
    case wipe
    /// New settings, validated.
    case settings(Settings)
    /// A reloaded configuration: roles, registrations, the store's share.
    case configuration(Authorization, StoreConfiguration)
}

