import Foundation
import Glibc
import Varlink

/// Serves Varlink on a listening Unix socket: accepts clients, reads their peer
/// credentials, and hands their calls to a ``VarlinkCallHandler``.
///
/// The server answers `org.varlink.service` itself (for every peer), and answers calls
/// to unknown interfaces or methods with the standard errors before the handler sees
/// them. Sockets are non-blocking and every client has bounded buffers, so a slow or
/// hostile client never blocks the others; one that stays idle past
/// ``ServerLimits/idleTimeoutSeconds`` is closed, so forgotten clients cannot hold every
/// connection. Lives on the event loop's thread.
public final class VarlinkServer {
    private let loop: EventLoop
    private let listeningSocket: Int32
    private let limits: ServerLimits
    private unowned let handler: any VarlinkCallHandler
    private let logger: Logger
    private var watch: WatchID?
    /// The next pass over the connections looking for idle ones.
    private var idleSweep: TimerID?
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

    /// Whether idle connections are looked for (an idle timeout is set and the server started).
    public var closesIdleConnections: Bool { idleSweep != nil }

    /// Starts accepting connections.
    public func start() throws(SystemError) {
        guard watch == nil else { return }
        try Syscall.setNonBlocking(listeningSocket)
        watch = try loop.watch(listeningSocket, for: .readable) { [unowned self] _ in self.acceptPending() }
        if limits.idleTimeoutSeconds > 0 { scheduleIdleSweep(at: loop.now.addingTimeInterval(limits.idleTimeoutSeconds)) }
    }

    /// Stops accepting and closes every connection.
    public func close() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        if let idleSweep { loop.cancel(idleSweep) }
        idleSweep = nil
        for connection in Array(connections.values) { connection.close(reason: nil) }
    }

    // MARK: Idle connections

    private func scheduleIdleSweep(at date: Date) {
        idleSweep = loop.schedule(at: date) { [unowned self] in self.closeIdleConnections() }
    }

    /// Closes the connections idle for the timeout or longer, then comes back when the
    /// next idle one is due, or after one timeout: a connection that becomes idle later
    /// (its call or stream ends) is due no sooner than that.
    ///
    /// One timer for all connections, not one per connection re-armed on every call: a
    /// request costs no timer work, only the stamp of ``VarlinkConnection/lastActivity``.
    private func closeIdleConnections() {
        let timeout = limits.idleTimeoutSeconds
        let now = loop.now
        var next = now.addingTimeInterval(timeout)
        for connection in Array(connections.values) where connection.isIdle {
            let due = connection.lastActivity.addingTimeInterval(timeout)
            if due <= now {
                connection.closeIdle()
            } else if due < next {
                next = due
            }
        }
        scheduleIdleSweep(at: next)
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
