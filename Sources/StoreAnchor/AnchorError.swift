// Target StoreAnchor: the rollback anchor (`RollbackAnchor`, `RollbackCounter`), below
// the ledger and the keys, which both anchor their saves through it and carry its
// errors as their own `anchor` case (`FileError.anchor`, `KeyError.anchor`). It sees
// neither; the facade maps its errors with `StoreError.init(_: AnchorError)`.

/// What the rollback anchor throws (DESIGN §9). No case carries a secret.
package enum AnchorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The keybag or the catalog `file` is older than the rollback counter says it must
    /// be: restored from a backup.
    case rolledBack(file: String, found: UInt64, expected: UInt64)
    /// The rollback counter disagrees with the state directory (`reason`, which names
    /// no secret).
    case rollbackCounter(reason: String)

    package var description: String {
        switch self {
        case .rolledBack(let file, let found, let expected):
            "\(file) is rolled back: it carries rollback counter value \(found) where \(expected) is due (restored from a backup?); nothing is served. Put the newest copy back, or wipe"
        case .rollbackCounter(let reason): "the rollback counter cannot be used: \(reason)"
        }
    }
}

/// What an anchored save threw (`RollbackAnchor.anchor`): its own write's failure, or
/// the anchor's.
package enum AnchoredSaveError<Failure: Error>: Error {
    case write(Failure)
    case anchor(AnchorError)
}
