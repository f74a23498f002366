import WidgetCrypto
import WidgetModel

/// What a passcode request (an unlock, a passcode set, change or removal) does, as
/// judged on the store's thread from its derived keys: the keybag it writes, if any,
/// and what follows once that is durable (`KeyCustody.complete`). The keys it holds
/// are zeroed when it is dropped.
package struct PasscodeJudgement: @unchecked Sendable {
    package enum Outcome {
        /// A right passcode (or none set): these keys are released, unless a lock came
        /// after `lockEpoch`.
        case unlocked([ProtectionClass: [Keybag.Generation: KeyPair]], lockEpoch: LockEpoch)
        /// A wrong passcode, counted in this keybag.
        case wrongPasscode(counted: Keybag)
        /// A passcode set, changed or removed: the keybag rotated.
        case passcodeChanged(Rotation)
    }

    /// A passcode change's new key generation, and what the lifecycle hears of it.
    package struct Rotation {
        /// Every passcode class's key pairs held before the change.
        package let held: [ProtectionClass: [Keybag.Generation: KeyPair]]
        package let generation: Keybag.Generation
        /// The new generation's key pairs.
        package let fresh: [ProtectionClass: KeyPair]
        /// The older generations dropped with it (no file is sealed to them).
        package let dropped: [Keybag.Generation]
        /// Whether a passcode was set before, and is after.
        package let wasSet: Bool
        package let isSet: Bool
    }

    package let outcome: Outcome
    /// The keybag to write before the outcome follows; `nil` when none changes.
    package let write: KeybagWrite?
}
