/// Keeps the server's output in the order it was made across connections while one
/// connection gathers its replies for a single `send`.
///
/// A connection handling its socket's events holds its replies until the handling ends
/// (`VarlinkConnection.handleIOEvents`), but a call handled there may make output for
/// other connections that leaves at once: a `Lock`'s reply, then the `Monitor` events
/// and watch updates the lock causes. So that the reply still goes first, as it did when
/// every reply left as it was made, a connection about to send tells this object, and
/// the gathering connection sends what it holds before it.
final class OutputOrder {
    /// The connection gathering its replies, if any (one at a time: the loop runs one
    /// connection's handling at once).
    weak var gathering: VarlinkConnection?
    /// The `send` calls made by every connection, counted; each connection keeps the
    /// number of its last, for tests that check the order across connections.
    private(set) var sends: UInt64 = 0

    /// Called by `connection` before it sends: the gathering connection, if another,
    /// sends what it holds first.
    func beforeSending(from connection: VarlinkConnection) {
        guard let gathering, gathering !== connection else { return }
        gathering.sendGatheredNow()
    }

    /// Numbers a `send` call.
    func numberSend() -> UInt64 {
        sends &+= 1
        return sends
    }
}
