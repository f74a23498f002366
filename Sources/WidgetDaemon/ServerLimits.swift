/// Bounds that keep one client from exhausting the daemon.
public struct ServerLimits: Sendable, Equatable {
    /// The largest message accepted, in bytes. It must fit a `PutTimeline` of
    /// `MaxTimelineBytes` plus its envelope: 2 MiB by default, for 1 MiB timelines.
    public var maxMessageBytes: Int
    /// Connections served at once; further ones are closed as they arrive.
    public var maxConnections: Int
    /// Unsent reply bytes a client may leave waiting before it is disconnected: a bound
    /// on the backlog, not on one reply (a reply is accepted while less than this waits).
    public var maxOutputBytesPerConnection: Int
    /// Calls a client may pipeline ahead of the one in progress; beyond it the daemon
    /// stops reading that connection until the queue drains.
    public var maxQueuedCalls: Int
    /// Seconds a connection may stay idle — no call in progress, no stream open, no
    /// input — before it is closed, so that forgotten clients cannot hold every one of
    /// `maxConnections`; 0 never closes one.
    public var idleTimeoutSeconds: Double

    /// Creates limits; the defaults suit a device with a few hosts and providers.
    public init(
        maxMessageBytes: Int = 2 << 20, maxConnections: Int = 256,
        maxOutputBytesPerConnection: Int = 4 << 20, maxQueuedCalls: Int = 64, idleTimeoutSeconds: Double = 60
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxConnections = maxConnections
        self.maxOutputBytesPerConnection = maxOutputBytesPerConnection
        self.maxQueuedCalls = maxQueuedCalls
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}
