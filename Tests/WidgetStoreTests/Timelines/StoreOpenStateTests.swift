import Testing
@testable import WidgetStore

/// The open state's table (`StoreOpenState`): every store ends up serving, by the one
/// action its state calls for, and a proof or a wipe is legal in any state.
@Suite struct StoreOpenStateTests {
    typealias State = StoreOpenState.State
    typealias Event = StoreOpenState.Event
    static let events: [Event] = [.noPasscodeToProve, .passcodeProved, .wiped]

    @Test func anOpenWaitsOnlyForWhatItLost() {
        #expect(StoreOpenState(ledgerLost: false, awaitingAnchor: false).state == .serving)
        #expect(StoreOpenState(ledgerLost: false, awaitingAnchor: true).state == .awaitingProofToAnchor)
        // A lost catalog waits for its rebuild, which anchors too.
        #expect(StoreOpenState(ledgerLost: true, awaitingAnchor: true).state == .awaitingProofToRebuildLedger)
    }

    @Test(arguments: State.allCases) func everyEventLeadsToServing(from state: State) {
        for event in Self.events { #expect(StoreOpenState.transition(from: state, on: event).0 == .serving) }
    }

    @Test func eachWaitIsEndedByItsOwnAction() {
        #expect(StoreOpenState.transition(from: .awaitingProofToAnchor, on: .passcodeProved).1 == .anchorTogether)
        #expect(StoreOpenState.transition(from: .awaitingProofToAnchor, on: .noPasscodeToProve).1 == .trust)
        #expect(StoreOpenState.transition(from: .awaitingProofToRebuildLedger, on: .passcodeProved).1 == .rebuildLedger)
        #expect(StoreOpenState.transition(from: .awaitingProofToRebuildLedger, on: .noPasscodeToProve).1 == .rebuildLedger)
        for state in State.allCases { #expect(StoreOpenState.transition(from: state, on: .wiped).1 == .none) }
        for event in Self.events { #expect(StoreOpenState.transition(from: .serving, on: event).1 == .none) }
    }
}
