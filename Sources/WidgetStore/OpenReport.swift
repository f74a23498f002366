/// What opening the store found and did that its owner reports (the daemon logs each),
/// as one value taken once when the open ends (`TimelineStore.openReport`), so that a
/// new finding is one field here and one reader, not another property to remember.
///
/// The waits it names are as the open left them; the store's live state
/// (`TimelineStore.awaitingPasscodeToRebuildLedger`, `awaitingPasscodeToAnchor`) moves
/// on at the unlock that proves the keybag, and a rebuild done then is told through
/// `StoreEventReporter.ledgerRebuilt`.
package struct OpenReport: Equatable, Sendable {
    /// The rollback counter's value when the open found the keybag or the catalog one
    /// ahead of it (written, then a crash before the increment) and caught up; else `nil`.
    package var caughtUpRollbackCounter: UInt64?
    /// Whether the open found a wipe that a crash had cut short, and finished it.
    package var finishedInterruptedWipe = false
    /// What `startOver` erased because the keybag was missing (e.g. "3 timeline
    /// files"), or `nil` if it erased nothing.
    package var startedOver: String?
    /// What the rebuild of a lost catalog found, when the open did it (`startOver` and
    /// no passcode to prove the keybag first).
    package var rebuiltLedger: LedgerRebuild?
    /// Whether the catalog was lost alone and the open waits for the first unlock with
    /// the passcode to rebuild it (only metadata and placeholders are served until then).
    package var awaitingPasscodeToRebuildLedger = false
    /// Whether files that carried no rollback anchor on a moved counter were opened on
    /// `startOver` and wait for the passcode to be anchored.
    package var awaitingPasscodeToAnchor = false

    /// A report of nothing to tell.
    package init() {}
}
