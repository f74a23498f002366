/// A monotonic counter kept outside the state directory, where no restored backup
/// reaches, that anchors the keybag and the catalog against rollback (DESIGN §9): with
/// `KeyProtection=tpm2` a TPM NV counter. Injected into `TimelineStore` beside its
/// `DeviceKeySource`; software mode has none, and its files carry no anchor.
///
/// Each increment is an NV write (about a millisecond, and NV memory wears out): the
/// store increments at keybag changes, journal folds, orderly stops and wipes
/// (`RollbackAnchor`), never per timeline write.
///
/// Threading: called from the store's thread and from a commit thread (a fold), never
/// from two at once: the store's `RollbackAnchor` serialises every call.
package protocol RollbackCounter: Sendable {
    /// The counter's value; 0 when it has never been incremented. A counter that cannot
    /// be read throws `AnchorError.rollbackCounter`.
    func read() throws(AnchorError) -> UInt64

    /// Increments the counter by one and returns its new value; a failure throws
    /// `AnchorError.rollbackCounter`.
    func increment() throws(AnchorError) -> UInt64
}
