import VarlinkTransport

/// The calls that need every stored timeline indexed (`ListWidgets`, `ReloadTimelines`,
/// a provider's write judged against its quota when the store does not know its
/// usage otherwise: `TimelineStore.isUsageKnown`), waiting while the index fills in the
/// background: answered in the order they came once it is complete, so that a large
/// store never holds the loop for them (at a million timelines, finishing the index at
/// once held it about 70 s, stalling every other client).
///
/// Only the call and what to do with it are kept, never its message: a waiting write
/// holds its body in secure memory. What each does is decided when the index is complete,
/// under the keys, settings and registrations then in force, so a Lock or a Wipe that
/// came meanwhile is honoured.
struct IndexWaiters {
    /// One waiting call: its context, its method (for its errors), and its work, given
    /// the caller's authority as it is when the index completes.
    struct Waiter {
        let context: CallContext
        let method: String
        let work: (PeerAuthority) throws(ServiceError) -> Void
    }

    /// The most calls that wait at once; one more is answered `TryAgainLater`: each holds
    /// its parameters (a write, up to a timeline's size) for as long as indexing lasts.
    static let limit = 256

    /// How long a refused caller is told to wait: the index completes in seconds to a
    /// minute, and a retry sooner would only be refused again.
    static let retryAfter = 1.0

    private var waiting: [Waiter] = []

    /// How many calls wait.
    var count: Int { waiting.count }

    /// Whether no other call may wait now.
    var isFull: Bool { waiting.count >= Self.limit }

    /// Queues a call behind the others.
    mutating func add(_ waiter: Waiter) {
        precondition(!isFull, "an index waiter beyond the limit")
        waiting.append(waiter)
    }

    /// Drops the calls of a closed connection: nobody would read their answers.
    mutating func remove(connection: ConnectionID) {
        waiting.removeAll { $0.context.connection == connection }
    }

    /// Every waiting call, oldest first; none waits afterwards.
    mutating func takeAll() -> [Waiter] {
        defer { waiting = [] }
        return waiting
    }
}
