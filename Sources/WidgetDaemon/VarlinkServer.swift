import Glibc
import Varlink

/// Serves Varlink on a listening Unix socket: accepts clients, reads their peer
/// credentials, and hands their calls to a ``VarlinkCallHandler``.
///
/// The server answers `org.varlink.service` itself (for every peer), and answers calls
/// to unknown interfaces or methods with the standard errors before the handler sees
/// them. Sockets are non-blocking and every client has bounded buffers, so a slow or
/// hostile client never blocks the others. Lives on the event loop's thread.
public final class VarlinkServer {
    private let loop: EventLoop
    private let listeningSocket: Int32
    private let limits: ServerLimits
    private unowned let handler: any VarlinkCallHandler
    private let logger: Logger
    private var watch: WatchID?
    private var connections: [ConnectionID: VarlinkConnection] = [:]
    private var nextConnection: UInt64 = 1
    private let readBuffer = ReadBuffer()

    /// Creates a server for `listeningSocket`, which stays owned by the caller (it may be
    /// systemd's): ``close()`` stops watching it but does not close it.
    ///
    /// The handler is not retained; its owner keeps both alive.
    public init(
        loop: EventLoop, listeningSocket: Int32, limits: ServerLimits, handler: any VarlinkCallHandler,
        logger: Logger
    ) {
        self.loop = loop
        self.listeningSocket = listeningSocket
        self.limits = limits
        self.handler = handler
        self.logger = logger
    }

    /// The number of open client connections.
    public var connectionCount: Int { connections.count }

    /// Starts accepting connections.
    public func start() throws(SystemError) {
        guard watch == nil else { return }
        try Syscall.setNonBlocking(listeningSocket)
        watch = try loop.watch(listeningSocket, for: .readable) { [unowned self] _ in self.acceptPending() }
    }

    /// Stops accepting and closes every connection.
    public func close() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        for connection in Array(connections.values) { connection.close(reason: nil) }
    }

    /// Accepts until the backlog is empty.
    private func acceptPending() {
        while true {
            let fd: Int32
            do {
                guard let accepted = try Syscall.accept(listeningSocket) else { return }
                fd = accepted
            } catch {
                // EMFILE and the like: the backlog waits for the next wake-up. Log, don't spin.
                logger.error("accept failed: \(error)", event: "accept_failed")
                return
            }
            admit(fd)
        }
    }

    private func admit(_ fd: Int32) {
        guard connections.count < limits.maxConnections else {
            logger.warning("refusing a connection: \(limits.maxConnections) are open", event: "connection_refused")
            Syscall.close(fd)
            return
        }
        let peer: PeerCredentials
        do {
            peer = try PeerCredentials.of(socket: fd)
        } catch {
            logger.warning("refusing a connection without credentials: \(error)", event: "connection_refused")
            Syscall.close(fd)
            return
        }
        let id = ConnectionID(rawValue: nextConnection)
        nextConnection += 1
        let connectionLogger = logger
            .with("connection.id", id.description)
            .with("peer.uid", String(peer.uid))
            .with("peer.pid", String(peer.pid))
        let connection = VarlinkConnection(
            id: id, fd: fd, peer: peer, loop: loop, limits: limits, handler: handler, logger: connectionLogger,
            readBuffer: readBuffer, onClose: { [unowned self] closed in self.forget(closed) })
        connections[id] = connection
        do {
            try connection.start()
        } catch {
            connection.close(reason: "cannot watch the socket: \(error)")
            return
        }
        connectionLogger.debug("connection accepted", event: "connection_accepted")
    }

    private func forget(_ connection: VarlinkConnection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        handler.connectionClosed(connection.id)
    }
}
