/// The lifecycle of one client connection, as an explicit state machine (in the manner
/// of swift-nio's channel lifecycle): every `(state, event)` pair is listed in
/// ``transition(from:on:)``, the illegal ones by name, with no `default:`.
///
/// It decides only the lifecycle: whether the socket is still read, whether calls are
/// still started, and when the connection closes. Flow control (a backlog left for a
/// later turn, a full queue) and the output itself stay with `VarlinkConnection`,
/// which reports what happened as ``Event``s and does what the ``Action`` says.
package struct ConnectionLifecycle: Equatable, Sendable {
    /// Where a connection is in its life.
    package enum State: Equatable, CaseIterable, Sendable {
        /// Reading calls and answering them.
        case open
        /// The client shut down its sending side: its calls are answered, then the
        /// connection closes. Nothing more is read.
        case inputClosed
        /// A protocol error was answered in place of everything waiting: what is
        /// buffered is sent, then the connection closes. Nothing more is read or started.
        case failing
        /// Closed: the socket is closed and everything buffered dropped.
        case closed
    }

    /// What happened to the connection.
    package enum Event: Equatable, Sendable {
        /// A read found the end of the client's stream.
        case endOfInput
        /// A message broke the protocol (too large); its error was queued as the last reply.
        case protocolError
        /// Nothing waits to be sent; `callsOutstanding`: a call is waiting, left in the
        /// framer, or in progress and not a stream (a stream in progress would never
        /// end on its own, so it does not keep a half-closed connection open).
        case outputDrained(callsOutstanding: Bool)
        /// The connection must close now: an error, the idle timeout, the message
        /// deadline, purged output, the server stopping.
        case closeRequested
    }

    /// What the connection does after an event.
    package enum Action: Equatable, Sendable {
        /// Nothing more.
        case none
        /// Close the socket and drop everything buffered (the state is already ``State/closed``).
        case close
    }

    /// The result of an event in a state: where it leads and what to do, or that the
    /// pair cannot happen without a bug in the connection.
    package enum Transition: Equatable, Sendable {
        /// The pair is legal: the next state, and what to do.
        case to(State, Action)
        /// The pair cannot happen without a bug; why.
        case illegal(String)
    }

    /// The state now.
    package private(set) var state: State = .open

    /// A connection just accepted: ``State/open``.
    package init() {}

    /// Whether the socket is read: only while ``State/open``.
    package var readsInput: Bool { state == .open }

    /// Whether calls already received are still started: not once a protocol error
    /// ended the stream, nor once closed.
    package var startsCalls: Bool { state == .open || state == .inputClosed }

    /// Whether the connection is closed.
    package var isClosed: Bool { state == .closed }

    /// Takes `event`; traps on an illegal pair, which only a bug in the connection can make.
    package mutating func handle(_ event: Event) -> Action {
        switch Self.transition(from: state, on: event) {
        case .to(let next, let action):
            state = next
            return action
        case .illegal(let why):
            preconditionFailure("connection lifecycle: \(event) in \(state): \(why)")
        }
    }

    /// Every pair, and where it leads.
    package static func transition(from state: State, on event: Event) -> Transition {
        switch (state, event) {
        case (.open, .endOfInput): .to(.inputClosed, .none)
        case (.inputClosed, .endOfInput): .illegal("the socket is not read once its end was seen")
        case (.failing, .endOfInput): .illegal("the socket is not read after a protocol error")
        case (.closed, .endOfInput): .illegal("a closed connection is not read")

        case (.open, .protocolError), (.inputClosed, .protocolError): .to(.failing, .none)
        case (.failing, .protocolError): .illegal("no message is framed after a protocol error")
        case (.closed, .protocolError): .illegal("no message is framed on a closed connection")

        case (.open, .outputDrained): .to(.open, .none)
        case (.inputClosed, .outputDrained(callsOutstanding: true)): .to(.inputClosed, .none)
        case (.inputClosed, .outputDrained(callsOutstanding: false)): .to(.closed, .close)
        case (.failing, .outputDrained): .to(.closed, .close)
        // A step that closed the connection (a failed send) still ends by looking.
        case (.closed, .outputDrained): .to(.closed, .none)

        case (.open, .closeRequested), (.inputClosed, .closeRequested), (.failing, .closeRequested): .to(.closed, .close)
        // Several causes may ask in one turn (a failed send, then the purge): closed once.
        case (.closed, .closeRequested): .to(.closed, .none)
        }
    }
}
