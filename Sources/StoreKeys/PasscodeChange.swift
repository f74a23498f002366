import SecureMemory
import WidgetCrypto

/// The slow half of a passcode change (one Argon2id for the current passcode, one for
/// the new), detached from the store like `PasscodeDerivation` so that the daemon can
/// run it off its event-loop thread.
///
/// Obtained from `TimelineStore.beginSetPasscode(hasCurrent:hasNew:now:)`, which has
/// already checked that the change is possible and that no failed-attempt delay runs.
/// It touches no store state; `TimelineStore.finishSetPasscode(_:now:)` applies it.
package struct PasscodeChange: @unchecked Sendable {
    /// The keybag salt the change was planned against: a change planned before
    /// another one proves nothing about the new keybag.
    package let basis: [UInt8]
    /// Derives the current passcode's key; `nil` when no passcode is set.
    package let current: PasscodeDerivation?
    /// Derives the new passcode's key under a fresh salt; `nil` to remove the passcode.
    package let new: PasscodeDerivation?
    /// The fresh salt and the cost of the new passcode's derivation.
    package let newSalt: [UInt8]
    package let newCost: KDFCost

    /// Runs both derivations. Safe to call from any thread; the passcodes are not retained.
    ///
    /// - Parameters:
    ///   - current: the current passcode, required when one is set.
    ///   - new: the new passcode, required unless the passcode is being removed.
    package func derive(current: SecureBytes?, new: SecureBytes?) throws(KeyError) -> DerivedPasscodeChange {
        var currentKey: DerivedPasscode? = nil
        if let derivation = self.current {
            guard let current else { throw .passcodeRequired }
            currentKey = try derivation.derive(current)
        }
        var newKey: DerivedPasscode? = nil
        if let derivation = self.new, let new { newKey = try derivation.derive(new) }
        return DerivedPasscodeChange(basis: basis, current: currentKey, new: newKey, newSalt: newSalt, newCost: newCost)
    }
}

/// The derived keys of a passcode change, in secure memory, ready for
/// `TimelineStore.finishSetPasscode(_:now:)`.
package struct DerivedPasscodeChange: @unchecked Sendable {
    package let basis: [UInt8]
    /// The current passcode's key; `nil` when no passcode was set.
    package let current: DerivedPasscode?
    /// The new passcode's key; `nil` to remove the passcode.
    package let new: DerivedPasscode?
    package let newSalt: [UInt8]
    package let newCost: KDFCost
}
