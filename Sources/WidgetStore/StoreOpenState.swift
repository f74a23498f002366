/// Whether an opened store waits for its passcode to prove its keybag, as an explicit
/// state machine (in the manner of `ConnectionLifecycle`): every `(state, event)` pair is
/// listed in ``transition(from:on:)``, with no `default:`.
///
/// Most opens serve at once. An administrator's `--start-over` may open a store whose
/// keybag nothing vouches for yet (DESIGN §9): its files carried no anchor on a rollback
/// counter that has moved, or its catalog was lost. Such a store waits for the first
/// unlock with the passcode; with no passcode set there is nothing to prove, and the
/// administrator's act is all. A wipe makes a new store, anchored from the start.
///
/// It decides only the order: `TimelineStore` does what the ``Action`` says (the
/// `RollbackAnchor` keeps the anchor's own side, which saves on other threads consult).
package struct StoreOpenState: Equatable, Sendable {
    /// What the store may do.
    package enum State: Equatable, CaseIterable, Sendable {
        /// Everything, as any store.
        case serving
        /// Its files are served; the keybag and the catalog are anchored together once
        /// the passcode proves the keybag (until then saves carry no anchor).
        case awaitingProofToAnchor
        /// The catalog was lost: nothing but metadata and placeholders is served, writes
        /// and deletes are refused, and the journal stays closed (its fold would save the
        /// catalog) until the catalog is rebuilt from the files, once the keybag is proven.
        case awaitingProofToRebuildLedger
    }

    /// What happened to the store.
    package enum Event: Equatable, Sendable {
        /// The open found no passcode set: nothing can prove the keybag.
        case noPasscodeToProve
        /// An unlock with the passcode succeeded: it proved the keybag.
        case passcodeProved
        /// The store was wiped.
        case wiped
    }

    /// What the store does after an event.
    package enum Action: Equatable, Sendable {
        /// Nothing.
        case none
        /// Tell the anchor the keybag is vouched for, and save nothing now.
        case trust
        /// Tell the anchor, and save the keybag and the catalog anchored together.
        case anchorTogether
        /// Rebuild the catalog from the timeline files (anchored together with the
        /// keybag), then open the journal.
        case rebuildLedger
    }

    /// The state now. The store moves it on only once the action succeeded: a rebuild
    /// that fails leaves it waiting (fail closed), to be tried again at the next proof.
    package internal(set) var state: State

    /// An open's state: a lost catalog waits to be rebuilt; unanchored files adopted
    /// on `--start-over` wait to be anchored; any other store serves.
    init(ledgerLost: Bool, awaitingAnchor: Bool) {
        state = ledgerLost ? .awaitingProofToRebuildLedger : awaitingAnchor ? .awaitingProofToAnchor : .serving
    }

    /// Every pair. None is illegal: a passcode proved or a wipe may come in any state.
    static func transition(from state: State, on event: Event) -> (State, Action) {
        switch (state, event) {
        case (.serving, .noPasscodeToProve), (.serving, .passcodeProved), (.serving, .wiped):
            (.serving, .none)
        case (.awaitingProofToAnchor, .noPasscodeToProve):
            (.serving, .trust)
        case (.awaitingProofToAnchor, .passcodeProved):
            (.serving, .anchorTogether)
        case (.awaitingProofToRebuildLedger, .noPasscodeToProve), (.awaitingProofToRebuildLedger, .passcodeProved):
            (.serving, .rebuildLedger)
        case (.awaitingProofToAnchor, .wiped), (.awaitingProofToRebuildLedger, .wiped):
            // The anchor forgets the files awaiting proof itself (`RollbackAnchor.advance`).
            (.serving, .none)
        }
    }
}
