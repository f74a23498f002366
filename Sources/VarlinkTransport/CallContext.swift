import FoundationEssentials
import Logging
import Varlink
import WidgetdPOSIX

/// Identifies one client connection for the lifetime of the server's process.
package struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// A number unique among the process's connections.
    package let rawValue: UInt64

    /// Wraps a connection number.
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The number, for logs.
    package var description: String { String(rawValue) }
}

/// Handles the method calls the server does not answer itself.
///
/// Threading: every method is called on the event loop's thread.
package protocol VarlinkCallHandler: AnyObject {
    /// Handles one call; reply now or later through `context`, exactly once with a final
    /// reply (``CallContext/reply(_:)`` or ``CallContext/fail(_:)``). Later calls of the
    /// same connection wait until then.
    func handle(_ call: VarlinkCall, context: CallContext)

    /// The connection closed: drop its watches and pending contexts.
    func connectionClosed(_ id: ConnectionID)

    /// Checks `call`'s parameters as JSON text, or walks them with
    /// ``VarlinkCall/readParameters(_:)`` to decode them in the same pass: called as the
    /// message is framed, before the call waits its turn, so that it must be pure (no
    /// state read or changed; a value the walk refuses is answered when the call is
    /// handled). Throws ``VarlinkCallDecodingError/notAJSONObject`` when they are not
    /// JSON: the connection is closed.
    func readParameters(of call: inout VarlinkCall) throws(VarlinkCallDecodingError)

    /// The final reply to `message` (a message without its NUL, viewed in place in the
    /// connection's buffer) if the handler recognises it byte for byte as a call it can
    /// answer without decoding it, e.g. a repeated `GetPresentation` whose answer is
    /// cached; `nil` to decode and handle it as usual. Asked only when the connection has
    /// no call in progress or waiting, so replies keep their order.
    ///
    /// The reply is a view of the handler's memory, valid until the handler is next
    /// called: the connection sends it (or copies what the socket does not take) at
    /// once, so nothing is allocated, copied or retained per request. `now` is the loop's time for this turn. `permit` belongs to the
    /// connection (0 at first) and is the handler's to use, e.g. to remember that the
    /// peer was found allowed, so that repeated requests skip that check. `protection`
    /// (`nil` on entry) is set to what protected content the reply holds, if any, so a
    /// copy left unsent is marked (see ``CallContext/send(isFinal:protecting:encodedBy:)``).
    func cachedReply(
        to message: UnsafeRawBufferPointer, connection: ConnectionID, peer: PeerCredentials, now: Date, permit: inout UInt64,
        protection: inout (any OutputTag)?
    ) -> UnsafeRawBufferPointer?
}

extension VarlinkCallHandler {
    /// The parameters are checked alone; the handler decodes them when it handles the call.
    package func readParameters(of call: inout VarlinkCall) throws(VarlinkCallDecodingError) {
        try call.checkParameters()
    }

    /// No call is answered without decoding it.
    package func cachedReply(
        to message: UnsafeRawBufferPointer, connection: ConnectionID, peer: PeerCredentials, now: Date, permit: inout UInt64,
        protection: inout (any OutputTag)?
    ) -> UnsafeRawBufferPointer? {
        nil
    }
}

/// One call's way back to its client.
///
/// A call ends with exactly one final reply: ``reply(encoded:protecting:)``, a final
/// ``send(isFinal:protecting:encodedBy:)`` or ``fail(_:)``; a call made with `more` may
/// first send any number of replies that are not final. Replies after the final one,
/// and every reply to a `oneway` call, are dropped. How parameters become bytes is the
/// service's (its extensions encode through ``send(isFinal:protecting:encodedBy:)``).
/// Must be used on the event loop's thread.
package final class CallContext {
    /// The connection the call came on.
    package let connection: ConnectionID
    /// Who made the call.
    package let peer: PeerCredentials
    /// Whether the caller accepts a stream of replies (`more`).
    package let wantsMore: Bool
    /// Whether the caller wants no reply (`oneway`).
    package let isOneway: Bool
    /// The connection's logger, whose metadata says who called (`peer.uid`, `peer.pid`,
    /// `connection.id`): events about the call go through it, so that no call site adds
    /// the peer by hand. A call about one widget adds `widget.id` to a copy.
    package let logger: Logger

    private let deliver: (_ reply: [UInt8], _ isFinal: Bool, _ protection: (any OutputTag)?) -> Void
    private let isConnectionOpen: () -> Bool
    private var isAnswered = false

    /// Creates a context whose replies go to `deliver`.
    ///
    /// The server makes one per call; tests of handlers make their own to capture the
    /// replies. `deliver` gets each reply's bytes (NUL included) and whether it ends the
    /// call; `isConnectionOpen` tells whether anyone is still listening; `logger` gets
    /// the call's events (none are kept by default).
    package convenience init(
        connection: ConnectionID, peer: PeerCredentials, wantsMore: Bool, isOneway: Bool = false,
        logger: Logger = .disabled,
        deliver: @escaping (_ reply: [UInt8], _ isFinal: Bool) -> Void,
        isConnectionOpen: @escaping () -> Bool = { true }
    ) {
        self.init(
            connection: connection, peer: peer, wantsMore: wantsMore, isOneway: isOneway, logger: logger,
            deliverProtected: { reply, isFinal, _ in deliver(reply, isFinal) }, isConnectionOpen: isConnectionOpen)
    }

    /// Creates a context whose replies go to `deliverProtected` with the protection of
    /// what each holds (`nil` for replies without protected content), so that a
    /// connection can drop unsent ones when their class is purged (and a test can see
    /// how each reply was marked).
    package init(
        connection: ConnectionID, peer: PeerCredentials, wantsMore: Bool, isOneway: Bool, logger: Logger,
        deliverProtected: @escaping (_ reply: [UInt8], _ isFinal: Bool, _ protection: (any OutputTag)?) -> Void,
        isConnectionOpen: @escaping () -> Bool
    ) {
        self.connection = connection
        self.peer = peer
        self.wantsMore = wantsMore
        self.isOneway = isOneway
        self.logger = logger
        self.deliver = deliverProtected
        self.isConnectionOpen = isConnectionOpen
    }

    /// Whether replies still reach the client: false once the call got its final reply
    /// or the connection closed. A handler holding a stream drops it when this is false.
    package var isOpen: Bool { !isAnswered && isConnectionOpen() }

    /// Sends a final reply that is already encoded (NUL-terminated), e.g. a cached
    /// presentation: the hot path encodes nothing. `protection`: what protected
    /// content it holds, if any (see ``send(isFinal:protecting:encodedBy:)``). The bytes
    /// are not zeroed here: they belong to their cache, which zeroes them itself.
    package func reply(encoded bytes: [UInt8], protecting protection: (any OutputTag)? = nil) {
        precondition(bytes.last == 0, "an encoded reply ends with its NUL")
        send(isFinal: true, wipe: false, protection: protection) { bytes }
    }

    /// Sends a stream reply that is already encoded with `continues: true` (its owner
    /// zeroes it); without `more` it ends the call (a client that did not ask for a
    /// stream gets one answer). `protection`: what protected content it holds, if any
    /// (see ``send(isFinal:protecting:encodedBy:)``).
    package func stream(encoded bytes: [UInt8], protecting protection: (any OutputTag)? = nil) {
        precondition(bytes.last == 0, "an encoded reply ends with its NUL")
        send(isFinal: !wantsMore, wipe: false, protection: protection) { bytes }
    }

    /// Sends the reply `encode` makes (NUL-terminated), final or not, and zeroes it once
    /// the connection has copied it: it may hold decrypted content, and nobody else
    /// holds it. `encode` runs only when the reply is delivered (not for a `oneway`
    /// call, a closed connection or a call already answered).
    ///
    /// `protection` marks a reply holding protected content: if the socket does not
    /// take it at once, what waits is dropped (and the connection closed) when the
    /// service says, through ``VarlinkServer/dropUnsentOutput(where:)``, that the tag's
    /// content may no longer be read.
    package func send(isFinal: Bool, protecting protection: (any OutputTag)? = nil, encodedBy encode: () -> [UInt8]) {
        send(isFinal: isFinal, wipe: true, protection: protection, encode)
    }

    /// Ends the call with an error.
    package func fail(_ error: VarlinkError) {
        send(isFinal: true, wipe: true) { VarlinkReply.encode(error: error) }
    }

    /// `wipe`: the reply was encoded for this call and nobody else holds it, so its bytes (which
    /// may be decrypted content) are zeroed once the connection has copied them. A
    /// small freed buffer goes to glibc's per-thread cache, which M_PERTURB does not
    /// overwrite: MemoryHygieneTests found a GetTimeline reply there after the lock.
    /// Pre-encoded replies belong to their cache, which zeroes them itself.
    private func send(isFinal: Bool, wipe: Bool, protection: (any OutputTag)? = nil, _ encode: () -> [UInt8]) {
        guard !isAnswered else { return }
        if isFinal { isAnswered = true }
        // The server does not wait for oneway calls: there is nobody to answer.
        guard !isOneway, isConnectionOpen() else { return }
        var bytes = encode()
        deliver(bytes, isFinal, protection)
        if wipe { VarlinkReply.wipe(&bytes) }
    }
}
