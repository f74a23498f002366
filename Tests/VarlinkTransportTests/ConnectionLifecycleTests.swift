import Testing

import VarlinkTransport

/// The connection's lifecycle table, pair by pair: each legal pair's next state and
/// action, and which pairs are illegal (only a bug in the connection could make them).
@Suite struct ConnectionLifecycleTests {
    typealias Lifecycle = ConnectionLifecycle
    typealias Row = (Lifecycle.State, Lifecycle.Event, Lifecycle.Transition)

    static let table: [Row] = [
        (.open, .endOfInput, .to(.inputClosed, .none)),
        (.open, .protocolError, .to(.failing, .none)),
        (.open, .outputDrained(callsOutstanding: false), .to(.open, .none)),
        (.open, .outputDrained(callsOutstanding: true), .to(.open, .none)),
        (.open, .closeRequested, .to(.closed, .close)),

        (.inputClosed, .protocolError, .to(.failing, .none)),
        (.inputClosed, .outputDrained(callsOutstanding: true), .to(.inputClosed, .none)),
        (.inputClosed, .outputDrained(callsOutstanding: false), .to(.closed, .close)),
        (.inputClosed, .closeRequested, .to(.closed, .close)),

        (.failing, .outputDrained(callsOutstanding: true), .to(.closed, .close)),
        (.failing, .outputDrained(callsOutstanding: false), .to(.closed, .close)),
        (.failing, .closeRequested, .to(.closed, .close)),

        (.closed, .outputDrained(callsOutstanding: false), .to(.closed, .none)),
        (.closed, .outputDrained(callsOutstanding: true), .to(.closed, .none)),
        (.closed, .closeRequested, .to(.closed, .none)),
    ]

    static let illegal: [(Lifecycle.State, Lifecycle.Event)] = [
        (.inputClosed, .endOfInput), (.failing, .endOfInput), (.closed, .endOfInput),
        (.failing, .protocolError), (.closed, .protocolError),
    ]

    @Test(arguments: table.indices)
    func eachLegalPairLeadsWhereTheTableSays(_ index: Int) {
        let (state, event, expected) = Self.table[index]
        #expect(Lifecycle.transition(from: state, on: event) == expected)
    }

    @Test(arguments: illegal.indices)
    func pairsThatOnlyABugCanMakeAreIllegal(_ index: Int) {
        let (state, event) = Self.illegal[index]
        guard case .illegal = Lifecycle.transition(from: state, on: event) else {
            Issue.record("\(event) in \(state) should be illegal")
            return
        }
    }

    @Test func theTablesCoverEveryPair() {
        let events: [Lifecycle.Event] = [
            .endOfInput, .protocolError, .outputDrained(callsOutstanding: false),
            .outputDrained(callsOutstanding: true), .closeRequested,
        ]
        for state in Lifecycle.State.allCases {
            for event in events {
                let listed =
                    Self.table.contains { $0.0 == state && $0.1 == event } || Self.illegal.contains { $0.0 == state && $0.1 == event }
                #expect(listed, "\(event) in \(state) is in neither table")
            }
        }
    }

    @Test func onlyAnOpenConnectionIsReadAndAFailingOneStartsNoCalls() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.readsInput && lifecycle.startsCalls && !lifecycle.isClosed)
        #expect(lifecycle.handle(.endOfInput) == .none)
        #expect(!lifecycle.readsInput && lifecycle.startsCalls)
        #expect(lifecycle.handle(.protocolError) == .none)
        #expect(!lifecycle.readsInput && !lifecycle.startsCalls && !lifecycle.isClosed)
        #expect(lifecycle.handle(.outputDrained(callsOutstanding: true)) == .close)
        #expect(lifecycle.isClosed && lifecycle.state == .closed)
        #expect(lifecycle.handle(.closeRequested) == .none)
    }

    @Test func aHalfClosedConnectionWaitsForItsCallsThenCloses() {
        var lifecycle = Lifecycle()
        _ = lifecycle.handle(.endOfInput)
        #expect(lifecycle.handle(.outputDrained(callsOutstanding: true)) == .none)
        #expect(lifecycle.state == .inputClosed)
        #expect(lifecycle.handle(.outputDrained(callsOutstanding: false)) == .close)
    }
}
