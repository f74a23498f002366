// Part: the rollback anchor (`Anchor/`: `RollbackAnchor`, `RollbackCounter`), below the
// keys and the ledger, which both anchor their saves through it and carry its errors as
// their own `anchor` case (`KeyError.anchor`, `LedgerError.anchor`): neither part's
// error holds the other's. It knows neither part; the facade maps its errors with
// `StoreError.init(_: AnchorError)`.

/// What the rollback anchor throws (DESIGN §9). No case carries a secret.
enum AnchorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The keybag or the catalog `file` is older than the rollback counter says it must
    /// be: restored from a backup.
    case rolledBack(file: String, found: UInt64, expected: UInt64)
    /// The rollback counter disagrees with the state directory (`reason`, which names
    /// no secret).
    case rollbackCounter(reason: String)
    /// The injected counter's own error (`RollbackCounter`), which speaks the store's
    /// `StoreError` and passes through unchanged.
    case counter(StoreError)

    var description: String {
        switch self {
        case .rolledBack(let file, let found, let expected):
            "\(file) is rolled back: it carries rollback counter value \(found) where \(expected) is due (restored from a backup?); nothing is served. Put the newest copy back, or wipe"
        case .rollbackCounter(let reason): "the rollback counter cannot be used: \(reason)"
        case .counter(let error): error.description
        }
    }
}

/// What an anchored save threw (`RollbackAnchor.anchor`): its own write's failure, or
/// the anchor's.
enum AnchoredSaveError<Failure: Error>: Error {
    case write(Failure)
    case anchor(AnchorError)
}
