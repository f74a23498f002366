import FoundationEssentials
import Glibc
import Logging
import StrictJSON
import Varlink
import WidgetdPOSIX

/// One client connection: reads and frames its calls, answers them in order, and
/// buffers its replies until the socket takes them.
///
/// Calls on a connection are answered in the order they arrived: while one is in
/// progress (an asynchronous `Unlock`, a `more` stream) later ones wait in a queue.
/// Replies can hold decrypted content: what the socket has not taken waits in secure
/// memory (``UnsentOutput``), and is dropped with the connection when the class of the
/// content it holds is purged (``dropOutput(holdingAny:)``).
/// Lives on the event loop's thread.
final class VarlinkConnection: IOEventHandler {
    let id: ConnectionID
    let fd: FileDescriptor
    let peer: PeerCredentials
    private let loop: EventLoop
    private let limits: ServerLimits
    /// The service's interfaces and the replies the connection gives for it.
    private let service: ServiceDescription
    /// Held strongly: an `unowned` reference cost an atomic load-and-retain through the
    /// handler's side table on every request. The handler does not hold connections,
    /// so there is no cycle; a closed connection is released and lets go of it.
    private let handler: any VarlinkCallHandler
    private let logger: Logger
    /// Called once when the connection closes, so the server forgets it.
    private let onClose: (VarlinkConnection) -> Void
    /// The server's read buffer, shared by its connections (one thread reads at a time).
    private let readBuffer: ReadBuffer
    /// The bound on input buffered by all of the server's connections together.
    private let inputBudget: InputBudget
    /// What this connection's framer holds allocated, as counted in `inputBudget`.
    private var accountedInput = 0
    /// Called when a message begins and stays unfinished, so the server can watch its deadline.
    private let onMessageBegun: (VarlinkConnection) -> Void
    /// Whether the peer is an admin or unlock peer: not counted against its uid's
    /// connections (see ``ServerLimits/maxConnectionsPerUser``).
    let isPrivileged: Bool

    private var watch: WatchID?
    /// What the socket is watched for now, so an unchanged interest costs nothing.
    private var interest: IOEvents = .readable
    private let framer: MessageFramer
    private var output = UnsentOutput<any OutputTag>()
    /// Whether the connection is handling its socket's events: replies made meanwhile
    /// leave together, in one `send` when the turn's handling ends (``endBatch()``).
    private var isBatching = false
    /// Whether output already waited for the client when the batch began.
    private var batchOutputWaited = false
    /// The batch's first reply while it is alone and a view of the handler's cache (see
    /// ``VarlinkCallHandler/cachedReply(to:connection:peer:now:permit:protection:)``):
    /// sent from there when the batch ends, so a turn that answers one cached read copies
    /// nothing. Copied into `output` before the handler is called again, which may
    /// change the memory it views, or before any other reply.
    private var heldReply: UnsafeRawBufferPointer?
    private var heldProtection: (any OutputTag)?
    /// `send` calls made, for tests that count how replies leave.
    private(set) var sendCallCount = 0
    /// The number of this connection's last `send` among every connection's
    /// (`OutputOrder`), for tests that check the order across connections.
    private(set) var lastSendNumber: UInt64 = 0
    /// Keeps a reply gathered here ahead of output it causes on other connections.
    private let outputOrder: OutputOrder
    /// What arrived and waits its turn: a call, or the error answering a malformed one.
    private enum Pending {
        case call(VarlinkCall)
        case invalid(VarlinkError)
    }

    private var queue: [Pending] = []
    private var queueStart = 0
    /// The call being answered; later calls wait.
    private var current: CallContext?
    /// Open, input closed, failing or closed: what is read, what is started, when it closes.
    private var lifecycle = ConnectionLifecycle()
    /// Whether the connection is closed.
    var isClosed: Bool { lifecycle.isClosed }
    /// When the client's last complete message arrived, its last call ended, or its
    /// socket last took waiting output (the client read): the start of its idleness
    /// while nothing waits on it (``idleSince``). Bytes of an unfinished message do not
    /// count: one byte now and then must not keep a connection forever.
    private var lastActivity: MonotonicInstant
    /// When what waits on the client (``waitsOnClient``) last moved: it began to wait,
    /// the socket took some of the waiting output, or the backlog went on because the
    /// socket became writable. What the client sends meanwhile does not count: a client
    /// that never reads would otherwise keep its connection by sending.
    private var lastMoved: MonotonicInstant
    /// Whether something waited on the client when last noted, so that the moment it
    /// begins to wait is stamped once (``noteWhetherItWaitsOnTheClient()``).
    private var waitedOnClient = false
    /// When the unfinished message the framer holds began (the turn its first bytes
    /// were read), for ``VarlinkServer``'s message deadline; `nil` while none is.
    private(set) var messageBegan: MonotonicInstant?
    private var isDispatching = false
    /// The framer may still hold complete calls that were left for a later turn of the
    /// loop (the turn's budget was spent, or the queue is full); while it does, the
    /// socket is not read, so the framer's size stays bounded.
    private var hasBacklog = false
    /// The handler's memory that this peer may be answered from its cache (see
    /// ``VarlinkCallHandler/cachedReply(to:connection:peer:now:permit:protection:)``).
    private var cachedReplyPermit: UInt64 = 0

    /// Calls answered per connection per turn of the loop: a client that pipelines
    /// thousands of calls gets them answered a few dozen at a time, in turn with the others.
    static let callsPerTurn = 16

    init(
        id: ConnectionID, fd: FileDescriptor, peer: PeerCredentials, isPrivileged: Bool, loop: EventLoop, limits: ServerLimits,
        service: ServiceDescription, handler: any VarlinkCallHandler, logger: Logger, readBuffer: ReadBuffer, outputOrder: OutputOrder, inputBudget: InputBudget,
        onMessageBegun: @escaping (VarlinkConnection) -> Void, onClose: @escaping (VarlinkConnection) -> Void
    ) {
        self.readBuffer = readBuffer
        self.outputOrder = outputOrder
        self.inputBudget = inputBudget
        self.onMessageBegun = onMessageBegun
        self.isPrivileged = isPrivileged
        self.id = id
        self.fd = fd
        self.peer = peer
        self.loop = loop
        self.limits = limits
        self.service = service
        self.handler = handler
        self.logger = logger
        self.onClose = onClose
        self.framer = MessageFramer(maxMessageBytes: limits.maxMessageBytes)
        self.lastActivity = loop.turnInstant
        self.lastMoved = loop.turnInstant
    }

    /// Whether the connection waits on its client to read: replies wait unsent, or
    /// calls wait in the framer for the socket to become writable (a backlog with no
    /// call in progress; the replies before it fill the kernel's buffer, unread).
    private var waitsOnClient: Bool {
        pendingOutputCount > 0 || (hasBacklog && current == nil)
    }

    /// Since when the connection has been idle, for ``VarlinkServer``'s idle timeout;
    /// `nil` while it is not.
    ///
    /// - While it waits on its client to read (``waitsOnClient``), since its output or
    ///   backlog last moved (``lastMoved``), whatever the client sends meanwhile: calls
    ///   and messages that pile up behind replies nobody reads are not activity.
    /// - Else, with no call in progress (a `more` stream is one until its final reply)
    ///   and none queued, since the client's last complete message, the end of its last
    ///   call, or its last read (``lastActivity``).
    /// - Else (a call in progress, calls queued behind it) it is not idle.
    var idleSince: MonotonicInstant? {
        guard !isClosed else { return nil }
        if waitsOnClient { return lastMoved }
        if current == nil, queueStart == queue.count { return lastActivity }
        return nil
    }

    /// Stamps the moment the connection begins to wait on its client.
    private func noteWhetherItWaitsOnTheClient() {
        let waits = waitsOnClient
        if waits, !waitedOnClient { lastMoved = loop.turnInstant }
        waitedOnClient = waits
    }

    /// Closes the connection because it was idle too long.
    func closeIdle() {
        logger.debug("closing an idle connection", event: "connection_idle")
        close(reason: nil)
    }

    /// Closes the connection because its client did not finish a message in time.
    func closeUnfinished(after seconds: Double) {
        logger.warning("closing a connection whose message was not finished within \(seconds) s", event: "message_timeout")
        close(reason: nil)
    }

    /// If a reply still waiting to be sent holds content that `unreadable` says its
    /// reader may no longer read (its class was purged), zeroes all unsent output and
    /// closes the connection: the reply cannot be sent in part, and later replies
    /// cannot be sent without it.
    func dropOutput(holdingAny unreadable: (any OutputTag) -> Bool) {
        guard !isClosed else { return }
        keepHeldReply()
        guard let held = output.firstProtection(where: unreadable) else { return }
        output.removeAll()
        logger.warning(
            "unsent output holds content whose class was purged; dropped, closing the connection",
            event: "connection_dropped_protected_output", metadata: held.logMetadata)
        close(reason: nil)
    }

    /// Starts watching the socket. The loop holds the connection until ``close(reason:)``
    /// unwatches it.
    func start() throws(SystemError) {
        watch = try loop.watch(fd, for: .readable, notifying: self)
    }

    // MARK: Events

    /// The socket is ready (called by the loop).
    func handleIOEvents(_ events: IOEvents) {
        if events.contains(.writable) { flush() }
        // The replies to every call handled below leave together (see ``enqueue(_:protection:stable:)``).
        batchOutputWaited = pendingOutputCount > 0
        isBatching = true
        outputOrder.gathering = self
        // Writable interest is also how a backlog waits for its next turn (below). The
        // socket took more: what waits on the client moved.
        if events.contains(.writable), !isClosed, hasBacklog {
            lastMoved = loop.turnInstant
            resume()
        }
        if !isClosed, events.contains(.readable) || events.contains(.hangup) { readAvailable() }
        endBatch()
        if !isClosed, events.contains(.hangup), !events.contains(.readable) { close(reason: nil) }
    }

    /// Reads what the socket holds (a bounded amount per wake-up, so one busy client
    /// cannot starve the others), then handles every complete call.
    private func readAvailable() {
        // Calls already received wait their turn first; the socket keeps the rest.
        guard !hasBacklog, lifecycle.readsInput else { return }
        let buffer = readBuffer.bytes
        for _ in 0..<16 {
            let count: Int?
            do {
                count = try Syscall.receive(fd, into: buffer)
            } catch {
                close(reason: "read failed: \(error)")
                return
            }
            guard let count else { break }
            if count == 0 {
                _ = lifecycle.handle(.endOfInput)
                break
            }
            let received = UnsafeMutableRawBufferPointer(rebasing: buffer[..<count])
            // Checked before the framer grows: the whole daemon's buffered input is bounded.
            let admitted = account(framer.capacity(appending: count))
            if admitted { framer.append(UnsafeRawBufferPointer(received)) }
            // The bytes may hold a passcode: wipe the shared buffer's copy at once.
            SecretWipe.zero(received)
            guard admitted else {
                logger.warning(
                    "closing a connection: buffered input of all connections would pass \(inputBudget.limit) bytes",
                    event: "pending_input_exceeded")
                close(reason: nil)
                return
            }
            if count < buffer.count { break }
        }
        takeMessages()
        updateInterest()
        closeIfDone()
    }

    /// Counts `capacity` bytes of framer storage against the server's input budget;
    /// false (nothing counted) if that would pass the budget's limit.
    private func account(_ capacity: Int) -> Bool {
        let growth = Swift.max(0, capacity - InputBudget.freeBytesPerConnection) - accountedInput
        guard growth <= 0 || inputBudget.used + growth <= inputBudget.limit else { return false }
        inputBudget.used += growth
        accountedInput += growth
        return true
    }

    /// Notes, after messages were taken from the framer, whether an unfinished one
    /// remains and since when, and what the framer now holds allocated.
    private func noteUnfinishedMessage(tookMessages: Bool) {
        if tookMessages { lastActivity = loop.turnInstant }
        _ = account(framer.capacity(appending: 0))
        // Complete calls left for a later turn are the daemon's delay, not the client's.
        guard framer.pendingByteCount > 0, !hasBacklog else {
            messageBegan = nil
            return
        }
        // A message taken means the bytes after it began a new one.
        guard messageBegan == nil || tookMessages else { return }
        messageBegan = loop.turnInstant
        onMessageBegun(self)
    }

    /// Decodes the complete messages in the framer into the queue and dispatches, up to
    /// this turn's budget; the rest waits for ``resume()`` or for the client to read.
    ///
    /// Each message goes through the same steps, as sd-varlink's dispatch loop does:
    /// the budget (``hasRoomForAnotherCall(_:)``), the framing and the cache
    /// (``frameNextMessage(answerable:now:permit:protection:)``), then either the cached reply sent
    /// (``sendCached(_:_:)``) or the message decoded and queued (``queueDecoded(_:)``).
    private func takeMessages() {
        var budget = Self.callsPerTurn
        hasBacklog = false
        // Locals for the loop: the time this turn saw the requests, and the permit, written back once.
        let now = loop.turnTime
        var permit = cachedReplyPermit
        var tookMessages = false
        defer {
            cachedReplyPermit = permit
            if !isClosed { noteUnfinishedMessage(tookMessages: tookMessages) }
        }
        while lifecycle.startsCalls {
            guard hasRoomForAnotherCall(&budget) else { return }
            let answerable = queueStart == queue.count && current == nil
            var protection: (any OutputTag)?
            switch frameNextMessage(answerable: answerable, now: now, permit: &permit, protection: &protection) {
            case .none:
                return
            case .tooLarge:
                refuseOversizedMessage()
                return
            case .cached(let reply):
                tookMessages = true
                sendCached(reply, protection)
            case .toDecode(let copy):
                tookMessages = true
                guard queueDecoded(copy) else { return }
            }
        }
    }

    /// Takes one call of this turn's budget; false, the backlog noted, when the budget is
    /// spent or the queue full: the rest continues on a later turn, once the socket is
    /// writable (see updateInterest), or when the call in progress ends.
    @inline(__always)
    private func hasRoomForAnotherCall(_ budget: inout Int) -> Bool {
        guard budget > 0, queue.count - queueStart < limits.maxQueuedCalls else {
            hasBacklog = true
            return false
        }
        budget -= 1
        return true
    }

    /// What the framer held next. Trivial payloads only: an enum carrying a reference or
    /// an existential costs value-witness calls per request on this path.
    private enum FramedMessage {
        /// No complete message.
        case none
        /// A message over the size limit.
        case tooLarge
        /// A request the handler answered from its cache: a view of its reply, valid
        /// until the handler is next called (what content it holds comes beside it).
        case cached(UnsafeRawBufferPointer)
        /// A message to decode: a copy the caller owns.
        case toDecode(UnsafeMutableRawBufferPointer)
    }

    /// Frames the next complete message, read in place in the framer's buffer (which zeroes
    /// it afterwards), and asks the handler's cache for it when it can be answered now (no
    /// call before it waits): only a message that must be decoded is copied.
    @inline(__always)
    private func frameNextMessage(
        answerable: Bool, now: Date, permit: inout UInt64, protection: inout (any OutputTag)?
    ) -> FramedMessage {
        // The closure writes only trivial values: a cached reply's view, or a raw copy
        // of a message to decode. (An optional enum holding the decoded call, written in
        // the closure, cost generic value-witness calls per request.)
        var reply = UnsafeRawBufferPointer(start: nil, count: 0)
        var isCached = false
        var uncached = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        do {
            guard
                try framer.forNextMessage({ message in
                    // The handler is called again (below, or to decode): a held view
                    // of its cache goes to safety first. A lone reply stays a view.
                    if heldReply != nil { keepHeldReply() }
                    if answerable,
                        let cached = handler.cachedReply(
                            to: message, connection: id, peer: peer, now: now, permit: &permit, protection: &protection)
                    {
                        reply = cached
                        isCached = true
                        return
                    }
                    uncached = .allocate(byteCount: message.count, alignment: 1)
                    uncached.copyMemory(from: message)
                })
            else { return .none }
        } catch {
            return .tooLarge
        }
        return isCached ? .cached(reply) : .toDecode(uncached)
    }

    /// A message over the size limit: the stream cannot be followed past it.
    private func refuseOversizedMessage() {
        logger.warning("message over \(limits.maxMessageBytes) bytes; closing the connection", event: "message_too_large")
        framer.reset()
        protocolFailure(VarlinkError(name: service.tooLargeErrorName, parameters: ["limit": limits.maxMessageBytes]))
    }

    /// Sends a cached reply straight from the handler's secure memory; only what the
    /// socket refuses is copied, into the output buffer, which is zeroed once sent.
    @inline(__always)
    private func sendCached(_ reply: UnsafeRawBufferPointer, _ protection: (any OutputTag)?) {
        enqueue(reply, protection: protection, stable: true)
    }

    /// Decodes a message and queues it (an invalid one as its answer, in turn with the
    /// other calls), then dispatches; false when the connection closed (not JSON).
    private func queueDecoded(_ copy: UnsafeMutableRawBufferPointer) -> Bool {
        switch Self.decode(copy, readingParametersWith: handler) {
        case .call(let call):
            queue.append(.call(call))
        case .notAJSONObject:
            framer.reset()
            close(reason: "a message that is not a JSON object")
            return false
        case .invalid(let answer):
            // Its flags cannot be trusted: answer it, in turn with the other calls.
            queue.append(.invalid(answer))
        }
        dispatch()
        return true
    }

    /// What a message not answered from the cache turned out to be.
    private enum Decoded {
        case call(VarlinkCall)
        case invalid(VarlinkError)
        case notAJSONObject
    }

    /// Decodes a message copied out of the framer; the call takes the copy as its own
    /// wiping buffer, so no other copy of the message (content, passcodes) is made,
    /// and it is zeroed and freed with the call, or at once if it is not one. The parameters
    /// are checked as JSON here, as the rest of the message, by the handler's walk that
    /// decodes them (``VarlinkCallHandler/readParameters(of:)``): a message that is not
    /// JSON closes the connection when it is framed, whatever its method.
    private static func decode(_ copy: UnsafeMutableRawBufferPointer, readingParametersWith handler: any VarlinkCallHandler) -> Decoded {
        do {
            var call = try VarlinkCall(adoptingDeferringParameters: copy)
            try handler.readParameters(of: &call)
            // A handler that neither walked nor checked them leaves them to be checked.
            try call.checkParameters()
            return .call(call)
        } catch {
            switch error {
            case .notAJSONObject: return .notAJSONObject
            case .invalidCall(let answer): return .invalid(answer)
            }
        }
    }

    /// Continues with calls left in the framer by an earlier turn.
    private func resume() {
        guard hasBacklog, !isClosed else { return }
        takeMessages()
        updateInterest()
        closeIfDone()
    }

    private func protocolFailure(_ error: VarlinkError) {
        // Answer in place of everything still waiting, then close: the stream is lost.
        queue.removeAll()
        queueStart = 0
        enqueue(VarlinkReply.encode(error: error))
        // A failed send may have closed it already.
        if lifecycle.startsCalls { _ = lifecycle.handle(.protocolError) }
        updateInterest()
        closeIfDone()
    }

    // MARK: Dispatching calls

    /// Starts queued calls until one stays in progress.
    private func dispatch() {
        guard !isDispatching else { return }
        isDispatching = true
        defer { isDispatching = false }
        while !isClosed, current == nil, queueStart < queue.count {
            let next = queue[queueStart]
            queueStart += 1
            switch next {
            case .call(let call): start(call)
            case .invalid(let error): enqueue(VarlinkReply.encode(error: error))
            }
        }
        if queueStart == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueStart = 0
        } else if queueStart > 32 {
            queue.removeFirst(queueStart)
            queueStart = 0
        }
    }

    private func start(_ call: VarlinkCall) {
        let context = CallContext(
            connection: id, peer: peer, wantsMore: call.more, isOneway: call.oneway, logger: logger,
            deliverProtected: { [unowned self] bytes, isFinal, protection in
                self.deliver(bytes, isFinal: isFinal, protection: protection)
            },
            isConnectionOpen: { [weak self] in self.map { !$0.isClosed } ?? false })
        // A oneway call is not waited for: its replies are dropped anyway.
        if !call.oneway { current = context }
        if call.upgrade {
            context.fail(.invalidParameter("upgrade"))
        } else if call.interface == InterfaceDefinition.service.name {
            answerServiceCall(call, context: context)
        } else if let definition = service.interface(named: call.interface) {
            if definition.methods.contains(call.member) {
                handler.handle(call, context: context)
            } else {
                context.fail(.methodNotFound(call.method))
            }
        } else {
            context.fail(.interfaceNotFound(call.interface))
        }
    }

    /// `org.varlink.service` is answered here, for every peer.
    private func answerServiceCall(_ call: VarlinkCall, context: CallContext) {
        switch call.member {
        case "GetInfo":
            context.reply(encoded: service.infoReply)
        case "GetInterfaceDescription":
            do {
                let request = try call.parameters(InterfaceDescriptionRequest.self)
                guard let reply = service.descriptionReply(for: request.interface) else {
                    context.fail(.interfaceNotFound(request.interface))
                    return
                }
                context.reply(encoded: reply)
            } catch {
                context.fail(error)
            }
        default:
            context.fail(.methodNotFound(call.method))
        }
    }

    private func deliver(_ bytes: [UInt8], isFinal: Bool, protection: (any OutputTag)?) {
        guard !isClosed else { return }
        enqueue(bytes, protection: protection)
        if isFinal {
            current = nil
            // Idleness starts when the call ends, however long it (or its stream) lasted.
            lastActivity = loop.turnInstant
            dispatch()
            if hasBacklog, current == nil { takeMessages() }
            updateInterest()
            closeIfDone()
        } else {
            closeIfDone()
        }
    }

    // MARK: Output

    private var pendingOutputCount: Int { output.count + (heldReply?.count ?? 0) }

    /// The bytes of replies waiting to be sent, for tests.
    var unsentByteCountForTesting: Int { pendingOutputCount }

    private func enqueue(_ bytes: [UInt8], protection: (any OutputTag)? = nil) {
        bytes.withUnsafeBytes { enqueue($0, protection: protection) }
    }

    /// Sends a reply, or buffers it (a copy: the caller keeps and wipes its own) behind
    /// output still waiting. When nothing waits it is sent straight from the caller's
    /// bytes, and only what the socket did not take is copied: a cached reply then
    /// costs one `send` and no copy or wipe. The output buffer keeps its capacity, so
    /// a buffered reply costs no allocation once the connection has sent one like it.
    /// What waits is kept in secure memory, marked with `protection` (see ``UnsentOutput``).
    ///
    /// While the connection handles its socket's events (a batch), replies are not sent
    /// one by one: they gather in the output buffer and leave in one `send` when the
    /// handling ends, so a client that pipelines N calls costs one system call for the
    /// N replies. A `stable` reply (a view of the handler's cache, valid until the
    /// handler is next called) that is the batch's only one is held as a view instead,
    /// and sent from there: one `send`, no copy, as outside a batch.
    /// The caller updates the interest and closes if done, as after any enqueue.
    private func enqueue(_ bytes: UnsafeRawBufferPointer, protection: (any OutputTag)? = nil, stable: Bool = false) {
        guard !isClosed else { return }
        // The limit bounds the backlog, not a reply: a reply is taken while the bytes
        // still waiting are under it, so one larger than the limit (ListWidgets over a
        // big store) reaches a client that reads, while one that does not read is cut
        // off once its backlog passes the limit (at most the limit plus one reply).
        if pendingOutputCount >= limits.maxOutputBytesPerConnection {
            close(reason: "the client does not read its replies (over \(limits.maxOutputBytesPerConnection) bytes waiting)")
            return
        }
        if isBatching {
            if stable, pendingOutputCount == 0 {
                heldReply = bytes
                heldProtection = protection
                return
            }
            keepHeldReply()
            append(bytes, protection: protection)
            return
        }
        var sent = 0
        if pendingOutputCount == 0 {
            outputOrder.beforeSending(from: self)
            while sent < bytes.count {
                let written: Int?
                do {
                    countSend()
                    written = try Syscall.send(fd, UnsafeRawBufferPointer(rebasing: bytes[sent...]))
                } catch {
                    close(reason: "send failed: \(error)")
                    return
                }
                guard let written else { break }
                sent += written
            }
            if sent == bytes.count { return }
        }
        // The writable event sends them. Waiting output makes the connection idle
        // (idleSince), counted from now, when it begins to wait (updateInterest notes
        // it), not from a call that may have begun long ago (a stream).
        guard append(UnsafeRawBufferPointer(rebasing: bytes[sent...]), protection: protection) else { return }
        updateInterest()
    }

    /// Copies bytes into the output buffer (secure memory); false, the connection
    /// closed, if none can be had.
    @discardableResult
    private func append(_ bytes: UnsafeRawBufferPointer, protection: (any OutputTag)?) -> Bool {
        do {
            try output.append(bytes, protection: protection)
            return true
        } catch {
            close(reason: "no secure memory for its unsent replies: \(error)")
            return false
        }
    }

    /// Copies the held view of the handler's cache into the output buffer, before the
    /// handler is called again or another reply follows it.
    private func keepHeldReply() {
        guard let held = heldReply else { return }
        heldReply = nil
        let protection = heldProtection
        heldProtection = nil
        append(held, protection: protection)
    }

    /// Sends what the batch gathered, in one `send` (a held view from where it is, or the
    /// output buffer), unless output already waited for the client before the batch: the
    /// writable event sends it then, as any waiting output.
    private func endBatch() {
        isBatching = false
        if outputOrder.gathering === self { outputOrder.gathering = nil }
        if let held = heldReply {
            let protection = heldProtection
            heldReply = nil
            heldProtection = nil
            enqueue(held, protection: protection)
        } else if !batchOutputWaited, pendingOutputCount > 0 {
            flush()
        }
        guard !isClosed else { return }
        updateInterest()
        closeIfDone()
    }

    /// A connection closing in the middle of a batch still sends what the batch gathered,
    /// as far as the socket takes it at once: outside a batch those replies would
    /// have left before the close.
    private func sendGatheredBeforeClosing() {
        guard isBatching, !batchOutputWaited else { return }
        keepHeldReply()
        while !output.isEmpty {
            countSend()
            guard let written = try? output.withUnsentBytes({ bytes throws(SystemError) in try Syscall.send(fd, bytes) }),
                written > 0
            else { return }
            output.removeFirst(written)
        }
    }

    /// Sends what this handling gathered so far, before another connection's output
    /// leaves (`OutputOrder`): a reply made here goes before what its call caused
    /// elsewhere. What the handling makes next gathers as before.
    func sendGatheredNow() {
        guard isBatching, !isClosed, !batchOutputWaited else { return }
        keepHeldReply()
        flush()
    }

    /// Counts a `send` call, and numbers it among every connection's.
    private func countSend() {
        sendCallCount &+= 1
        lastSendNumber = outputOrder.numberSend()
    }

    /// Writes buffered output until the socket would block.
    private func flush() {
        if !output.isEmpty { outputOrder.beforeSending(from: self) }
        while !output.isEmpty {
            let written: Int?
            do {
                countSend()
                written = try output.withUnsentBytes { bytes throws(SystemError) in try Syscall.send(fd, bytes) }
            } catch {
                close(reason: "send failed: \(error)")
                return
            }
            guard let written else { break }
            output.removeFirst(written)
            // The client read: waiting output is idle only while the socket takes none.
            if written > 0 {
                lastMoved = loop.turnInstant
                lastActivity = loop.turnInstant
            }
        }
        updateInterest()
        closeIfDone()
    }

    /// Watches the socket for what the connection now waits for. Not during a batch: its
    /// gathered replies would ask for writability just before they leave, at the batch's
    /// end, which decides (two `epoll_ctl` a request for nothing).
    private func updateInterest() {
        noteWhetherItWaitsOnTheClient()
        guard !isClosed, !isBatching, let watch else { return }
        var interest: IOEvents = []
        if lifecycle.readsInput, !hasBacklog, queue.count - queueStart < limits.maxQueuedCalls {
            interest.insert(.readable)
        }
        // A backlog waits for writability rather than a timer: the loop is level-triggered,
        // so a writable socket brings it back on the next turn, after the other ready
        // descriptors and due timers; a client that does not read its replies waits.
        if pendingOutputCount > 0 || (hasBacklog && queue.count - queueStart < limits.maxQueuedCalls) {
            interest.insert(.writable)
        }
        guard interest != self.interest else { return }
        self.interest = interest
        do {
            try loop.update(watch, interest: interest)
        } catch {
            close(reason: "epoll_ctl failed: \(error)")
        }
    }

    /// Closes once nothing more can happen: after a protocol error once its answer is
    /// out, or after the client stopped sending once its calls are answered (a stream
    /// in progress would never end, so it does not keep the connection open).
    private func closeIfDone() {
        guard pendingOutputCount == 0 else { return }
        let callsOutstanding = hasBacklog || queueStart != queue.count || (current.map { !$0.wantsMore } ?? false)
        if lifecycle.handle(.outputDrained(callsOutstanding: callsOutstanding)) == .close { tearDown(reason: nil) }
    }

    // MARK: Closing

    /// Closes the socket, drops everything buffered and tells the server; once only.
    func close(reason: String?) {
        guard lifecycle.handle(.closeRequested) == .close else { return }
        tearDown(reason: reason)
    }

    /// What closing does, once the lifecycle said to close.
    private func tearDown(reason: String?) {
        sendGatheredBeforeClosing()
        if let reason { logger.warning("closing connection: \(reason)", event: "connection_closed") }
        if let watch { loop.unwatch(watch) }
        watch = nil
        Syscall.close(fd)
        framer.reset()
        inputBudget.used -= accountedInput
        accountedInput = 0
        messageBegan = nil
        heldReply = nil
        heldProtection = nil
        output.removeAll()
        queue = []
        queueStart = 0
        current = nil
        onClose(self)
    }
}

/// The buffer sockets are read into before their bytes go to a connection's framer.
/// Allocated once per server; every byte read is zeroed right after it is copied out.
final class ReadBuffer {
    let bytes: UnsafeMutableRawBufferPointer

    init(byteCount: Int = 64 * 1024) {
        bytes = .allocate(byteCount: byteCount, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        SecretWipe.zero(bytes)
        bytes.deallocate()
    }
}
