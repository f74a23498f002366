/// Bounds that keep one client, or a crowd of them, from exhausting the daemon.
package struct ServerLimits: Sendable, Equatable {
    /// The largest message accepted, in bytes. It must fit a `PutTimeline` of
    /// `MaxTimelineBytes` plus its envelope: 2 MiB by default, for 1 MiB timelines.
    package var maxMessageBytes: Int
    /// Connections served at once; further ones are closed as they arrive.
    package var maxConnections: Int
    /// Connections one uid may hold at once. Admin and unlock peers are not counted
    /// against it (they may use the reserve too): the owner can always lock and unlock.
    package var maxConnectionsPerUser: Int
    /// The last `reservedConnections` of `maxConnections` are taken only by admin and
    /// unlock peers, so that a crowd of other peers cannot keep them out.
    package var reservedConnections: Int
    /// Unsent reply bytes a client may leave waiting before it is disconnected: a bound
    /// on the backlog, not on one reply (a reply is accepted while less than this waits).
    package var maxOutputBytesPerConnection: Int
    /// Calls a client may pipeline ahead of the one in progress; beyond it the daemon
    /// stops reading that connection until the queue drains.
    package var maxQueuedCalls: Int
    /// Seconds a connection may stay idle — no call in progress, no stream open, none
    /// waiting — counted from its last complete message or the end of its last call,
    /// before it is closed; bytes of an unfinished message do not count as activity.
    /// A connection whose replies wait unread is idle whatever it has in progress or
    /// queued, counted from when they began to wait or its socket last took some. 0
    /// never closes one.
    package var idleTimeoutSeconds: Double
    /// Seconds a client has to finish a message once its first byte arrived; 0 sets no
    /// deadline.
    package var messageTimeoutSeconds: Double
    /// Bytes of received input all connections together may hold buffered (what their
    /// framers have allocated, beyond 64 KiB each, which every call but a large
    /// `PutTimeline` fits in); a connection whose input would pass it is closed.
    package var maxPendingInputBytes: Int

    /// Creates limits; the defaults suit a device with a few hosts and providers.
    package init(
        maxMessageBytes: Int = 2 << 20, maxConnections: Int = 256, maxConnectionsPerUser: Int = 32,
        reservedConnections: Int = 8, maxOutputBytesPerConnection: Int = 4 << 20, maxQueuedCalls: Int = 64,
        idleTimeoutSeconds: Double = 60, messageTimeoutSeconds: Double = 10, maxPendingInputBytes: Int = 32 << 20
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxConnections = maxConnections
        self.maxConnectionsPerUser = maxConnectionsPerUser
        self.reservedConnections = reservedConnections
        self.maxOutputBytesPerConnection = maxOutputBytesPerConnection
        self.maxQueuedCalls = maxQueuedCalls
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.messageTimeoutSeconds = messageTimeoutSeconds
        self.maxPendingInputBytes = maxPendingInputBytes
    }
}
