import FoundationEssentials
import Glibc
import Logging
import Varlink
import WidgetdPOSIX

/// Serves Varlink on a listening Unix socket: accepts clients, reads their peer
/// credentials and sandbox once, at accept, and hands their calls to a ``VarlinkCallHandler``.
///
/// The server answers `org.varlink.service` itself (for every peer), and answers calls
/// to unknown interfaces or methods with the standard errors before the handler sees
/// them. Sockets are non-blocking and every client has bounded buffers, so a slow or
/// hostile client never blocks the others; one that stays idle past
/// ``ServerLimits/idleTimeoutSeconds`` or leaves a message unfinished past
/// ``ServerLimits/messageTimeoutSeconds`` is closed, so forgotten or trickling clients
/// cannot hold every connection. A crowd of peers cannot either: one uid holds at most
/// ``ServerLimits/maxConnectionsPerUser``, the last ``ServerLimits/reservedConnections``
/// are kept for admin and unlock peers (``reservePolicy``), and the input all
/// connections buffer together is bounded (``ServerLimits/maxPendingInputBytes``).
/// Lives on the event loop's thread.
package final class VarlinkServer {
    private let loop: EventLoop
    private let listeningSocket: FileDescriptor
    private let limits: ServerLimits
    private let service: ServiceDescription
    private unowned let handler: any VarlinkCallHandler
    private let logger: Logger
    private var watch: WatchID?
    /// The next pass over the connections looking for idle ones and unfinished messages.
    private var sweep: (timer: TimerID, date: MonotonicInstant)?
    private var connections: [ConnectionID: VarlinkConnection] = [:]
    /// Open connections per uid, of peers that are not exempt from the per-user limit.
    private var connectionsPerUser: [UInt32: Int] = [:]
    private var nextConnection: UInt64 = 1
    private let readBuffer = ReadBuffer()
    /// Keeps a reply ahead of the output its call causes on other connections.
    private let outputOrder = OutputOrder()
    private let inputBudget: InputBudget
    /// Reads a new connection's peer credentials; tests pass their own to act as several uids.
    private let credentials: (FileDescriptor) throws(SystemError) -> PeerCredentials

    /// Who says whether a peer may take the reserved connections and is exempt from the
    /// per-user limit (``ConnectionReservePolicy``): the daemon, from its configuration.
    /// `nil`, the default: no peer may. Not retained; its owner keeps it alive.
    package weak var reservePolicy: (any ConnectionReservePolicy)?

    /// Creates a server for `listeningSocket`, which stays owned by the caller (it may be
    /// systemd's): ``close()`` stops watching it but does not close it. `service` says
    /// what the server answers itself (``ServiceDescription``).
    ///
    /// The handler is not retained; its owner keeps both alive.
    package init(
        loop: EventLoop, listeningSocket: FileDescriptor, limits: ServerLimits, service: ServiceDescription,
        handler: any VarlinkCallHandler,
        logger: Logger, credentials: @escaping (FileDescriptor) throws(SystemError) -> PeerCredentials = PeerCredentials.of(socket:)
    ) {
        self.credentials = credentials
        inputBudget = InputBudget(limit: limits.maxPendingInputBytes)
        self.loop = loop
        self.listeningSocket = listeningSocket
        self.limits = limits
        self.service = service
        self.handler = handler
        self.logger = logger
    }

    /// The number of open client connections.
    package var connectionCount: Int { connections.count }

    /// The open client connections, for tests that look at one.
    var connectionsForTesting: [VarlinkConnection] { Array(connections.values) }

    /// Whether idle connections are looked for (an idle timeout is set and the server started).
    package var closesIdleConnections: Bool { limits.idleTimeoutSeconds > 0 && sweep != nil }

    /// The bytes of input all connections hold buffered now (their framers' storage).
    package var pendingInputBytes: Int { inputBudget.used }

    /// Starts accepting connections.
    package func start() throws(SystemError) {
        guard watch == nil else { return }
        try Syscall.setNonBlocking(listeningSocket)
        watch = try loop.watch(listeningSocket, for: .readable) { [unowned self] _ in self.acceptPending() }
        if limits.idleTimeoutSeconds > 0 { scheduleSweep(at: loop.clocks.monotonic.addingTimeInterval(limits.idleTimeoutSeconds)) }
    }

    /// Stops accepting and closes every connection.
    package func close() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        if let sweep { loop.cancel(sweep.timer) }
        sweep = nil
        for connection in Array(connections.values) { connection.close(reason: nil) }
    }

    /// Zeroes the unsent output of every connection holding a reply whose tag
    /// `unreadable` says its reader may no longer read, and closes those connections
    /// (each logs it). The service calls this whenever a class is purged or a timeline
    /// stops being open; a tag it does not know it must call unreadable (``OutputTag``).
    package func dropUnsentOutput(where unreadable: (any OutputTag) -> Bool) {
        for connection in Array(connections.values) { connection.dropOutput(holdingAny: unreadable) }
    }

    // MARK: Idle connections and unfinished messages

    /// Moves the next sweep to `date` unless one is due sooner.
    private func scheduleSweep(at date: MonotonicInstant) {
        if let sweep {
            guard date < sweep.date else { return }
            loop.cancel(sweep.timer)
        }
        sweep = (loop.schedule(at: .monotonic(date)) { [unowned self] in self.closeExpiredConnections() }, date)
    }

    /// A connection's message began and is unfinished: its deadline must be looked at in time.
    private func messageBegun(_ connection: VarlinkConnection) {
        guard limits.messageTimeoutSeconds > 0, let began = connection.messageBegan else { return }
        scheduleSweep(at: began.addingTimeInterval(limits.messageTimeoutSeconds))
    }

    /// Closes the connections idle for the timeout or longer and those whose message
    /// passed its deadline, then comes back when the next one is due, or after one idle
    /// timeout: a connection that becomes idle later (its call or stream ends) is due no
    /// sooner than that, and a message begun later brings the sweep forward itself.
    ///
    /// One timer for all connections, not one per connection re-armed on every call: a
    /// request costs no timer work, only the stamps behind ``VarlinkConnection/idleSince``.
    private func closeExpiredConnections() {
        sweep = nil
        let idleTimeout = limits.idleTimeoutSeconds
        let messageTimeout = limits.messageTimeoutSeconds
        let now = loop.clocks.monotonic
        var next: MonotonicInstant? = idleTimeout > 0 ? now.addingTimeInterval(idleTimeout) : nil
        func consider(_ due: MonotonicInstant) { if next.map({ due < $0 }) ?? true { next = due } }
        for connection in Array(connections.values) {
            if messageTimeout > 0, let began = connection.messageBegan {
                let due = began.addingTimeInterval(messageTimeout)
                if due <= now {
                    connection.closeUnfinished(after: messageTimeout)
                    continue
                }
                consider(due)
            }
            if idleTimeout > 0, let idleSince = connection.idleSince {
                let due = idleSince.addingTimeInterval(idleTimeout)
                if due <= now { connection.closeIdle() } else { consider(due) }
            }
        }
        if let next { scheduleSweep(at: next) }
    }

    /// Accepts until the backlog is empty.
    private func acceptPending() {
        while true {
            let fd: FileDescriptor
            do {
                guard let accepted = try Syscall.accept(listeningSocket) else { return }
                fd = accepted
            } catch {
                // EMFILE and the like: the backlog waits for the next wake-up. Log, don't spin.
                logger.error("accept failed", event: "accept_failed", error: error)
                return
            }
            admit(fd)
        }
    }

    private func admit(_ fd: FileDescriptor) {
        guard connections.count < limits.maxConnections else {
            logger.warning("refusing a connection: \(limits.maxConnections) are open", event: "connection_refused")
            Syscall.close(fd)
            return
        }
        let peer: PeerCredentials
        do {
            peer = try credentials(fd)
        } catch {
            logger.warning("refusing a connection without credentials", event: "connection_refused", error: error)
            Syscall.close(fd)
            return
        }
        // The one place a peer's identity enters the logs: every later event of this
        // connection, and of each of its calls (CallContext.logger), carries it.
        var peerLogger = logger.with("peer.uid", String(peer.uid)).with("peer.pid", String(peer.pid))
        // A sandboxed app, or a peer whose sandbox could not be told (and why): what its
        // authority was judged on besides its uid.
        if peer.sandbox != .unconfined { peerLogger = peerLogger.with("peer.sandbox", peer.sandbox.description) }
        let isPrivileged = reservePolicy?.mayUseReserve(peer) ?? false
        if !isPrivileged {
            let refusal: String? =
                if connections.count >= limits.maxConnections - limits.reservedConnections {
                    "the last \(limits.reservedConnections) of \(limits.maxConnections) connections are reserved for admin and unlock peers"
                } else if connectionsPerUser[peer.uid, default: 0] >= limits.maxConnectionsPerUser {
                    "uid \(peer.uid) has \(limits.maxConnectionsPerUser) connections open"
                } else {
                    nil
                }
            if let refusal {
                peerLogger.warning("refusing a connection: \(refusal)", event: "connection_refused")
                Syscall.close(fd)
                return
            }
            connectionsPerUser[peer.uid, default: 0] += 1
        }
        let id = ConnectionID(rawValue: nextConnection)
        nextConnection += 1
        let connectionLogger = peerLogger.with("connection.id", id.description)
        let connection = VarlinkConnection(
            id: id, fd: fd, peer: peer, isPrivileged: isPrivileged, loop: loop, limits: limits, service: service, handler: handler,
            logger: connectionLogger, readBuffer: readBuffer, outputOrder: outputOrder, inputBudget: inputBudget,
            onMessageBegun: { [unowned self] begun in self.messageBegun(begun) },
            onClose: { [unowned self] closed in self.forget(closed) })
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
        if !connection.isPrivileged {
            let uid = connection.peer.uid
            connectionsPerUser[uid] = connectionsPerUser[uid].flatMap { $0 > 1 ? $0 - 1 : nil }
        }
        handler.connectionClosed(connection.id)
    }
}


/// What a ``VarlinkServer`` asks at each accept, before the connection counts against
/// ``ServerLimits/maxConnectionsPerUser`` and the reserve of
/// ``ServerLimits/reservedConnections``: whether the peer is one the reserve is kept for
/// (for widgetd, its admin and unlock peers, so that the owner can always lock and
/// unlock). Asked on the loop's thread, under the configuration in force at that accept.
package protocol ConnectionReservePolicy: AnyObject {
    /// Whether `peer` may take the reserved connections and is exempt from the per-user limit.
    func mayUseReserve(_ peer: PeerCredentials) -> Bool
}
