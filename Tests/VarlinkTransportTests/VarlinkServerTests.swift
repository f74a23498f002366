import Foundation
import Glibc
import Logging
import Synchronization
import Testing
import TestSupport
import Varlink
@testable import VarlinkTransport
import WidgetdPOSIX
import WidgetdWire

/// Answers a few methods the way the real handlers will: at once, later, or as a stream.
private final class EchoHandler: VarlinkCallHandler {
    let loop: EventLoop
    var closed: [ConnectionID] = []
    var calls: [String] = []
    var largeReplyBytes = 0
    /// The `Monitor` streams open, for a test to send more on.
    var monitors: [CallContext] = []
    /// Whether a `Lock` tells the monitors after its reply, as the service does.
    var lockTellsMonitors = false

    /// When set, a message equal to it byte for byte is answered from `cache` without
    /// being decoded, as widgetd answers a repeated `GetPresentation`.
    var cachedRequest: [UInt8]?
    private var cachedAnswers = 0
    /// Overwritten whenever the handler is called, like a cache slot emptied by a write:
    /// a view of it is valid only until the handler is next called.
    private let cache = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 1)

    init(loop: EventLoop) {
        self.loop = loop
        cache.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "#"))
    }

    deinit { cache.deallocate() }

    struct WidgetParameters: Codable { let widget: String }

    /// When set, the handler leaves every call's parameters unchecked as they are framed
    /// (neither walked nor checked): the connection must check them itself.
    var leavesParametersUnchecked = false

    func readParameters(of call: inout VarlinkCall) throws(VarlinkCallDecodingError) {
        guard !leavesParametersUnchecked else { return }
        try call.checkParameters()
    }

    func cachedReply(
        to message: UnsafeRawBufferPointer, connection: ConnectionID, peer: PeerCredentials, now: Date, permit: inout UInt64,
        protection: inout (any OutputTag)?
    ) -> UnsafeRawBufferPointer? {
        cache.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "#"))
        guard let cachedRequest, message.elementsEqual(cachedRequest) else { return nil }
        cachedAnswers += 1
        let reply = Array(#"{"parameters":{"cached":\#(cachedAnswers)}}"#.utf8) + [0]
        cache.copyBytes(from: reply)
        return UnsafeRawBufferPointer(rebasing: cache[..<reply.count])
    }

    func handle(_ call: VarlinkCall, context: CallContext) {
        cache.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "#"))
        calls.append(call.member)
        switch call.member {
        case "GetPresentation":
            do {
                let parameters = try call.parameters(WidgetParameters.self)
                if largeReplyBytes > 0 {
                    context.reply(["widget": String(repeating: "x", count: largeReplyBytes)])
                } else {
                    context.reply(["widget": parameters.widget])
                }
            } catch {
                context.fail(error)
            }
        case "Unlock":
            // Answered on a later turn of the loop, like an Argon2id result.
            loop.schedule(at: Date.distantPast) { context.reply(["unlocked": true]) }
        case "Watch":
            guard context.wantsMore else { return context.fail(.expectedMore) }
            context.stream(["n": 1])
            loop.schedule(at: Date.distantPast) {
                context.stream(["n": 2])
                context.reply(["n": 3])
            }
        case "GetTimeline":
            // A large reply marked as holding class-A content.
            do {
                _ = try call.parameters(WidgetParameters.self)
                context.reply(
                    ["widget": String(repeating: "a", count: max(largeReplyBytes, 1))],
                    protecting: TestTag(protectionClass: "complete"))
            } catch {
                context.fail(.invalidParameter("widget"))
            }
        case "Lock":
            // Logged the way the service logs a call: through the call's own logger.
            context.logger.notice("locked", event: "lock")
            context.reply([String: Int]())
            if lockTellsMonitors { for monitor in monitors { monitor.stream(["event": 2]) } }
        case "Monitor":
            // A stream that stays open until the client goes away.
            guard context.wantsMore else { return context.fail(.expectedMore) }
            context.stream(["event": 1])
            monitors.append(context)
        default:
            context.fail(.methodNotImplemented(call.method))
        }
    }

    func connectionClosed(_ id: ConnectionID) { closed.append(id) }
}

/// A client socket whose replies the loop collects.
private final class TestClient {
    let fd: Int32
    var received: [UInt8] = []
    var isAtEOF = false
    var watch: WatchID?

    init(path: String, loop: EventLoop) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw SystemError("connect", code: errno) }
        try Syscall.setNonBlocking(FileDescriptor(rawValue: fd))
        watch = try loop.watch(FileDescriptor(rawValue: fd), for: .readable) { [unowned self] _ in self.readAll(loop: loop) }
    }

    private func readAll(loop: EventLoop) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 { received += buffer[..<count]; continue }
            if count == 0 || (errno != EAGAIN && errno != EINTR) {
                isAtEOF = true
                if let watch { loop.unwatch(watch) }
                watch = nil
            }
            return
        }
    }

    func send(_ messages: String...) {
        var bytes: [UInt8] = []
        for message in messages { bytes += Array(message.utf8) + [0] }
        send(bytes: bytes)
    }

    func send(bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            precondition(written > 0, "the test's writes fit in the socket buffer")
            offset += written
        }
    }

    /// The complete replies so far, as text.
    var replies: [String] {
        received.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    deinit { Glibc.close(fd) }
}

/// Clocks that a test moves forward: real time plus the jumps it was given, so the
/// harness's own polling keeps working while idle timeouts come due at once. The wall
/// clock can also be stepped alone, as NTP or a user sets it.
private final class TestClock: Sendable {
    private let offsets = Mutex<(running: TimeInterval, wall: TimeInterval)>((0, 0))

    var now: ClockReading {
        let (running, wall) = offsets.withLock { $0 }
        var reading = ClockReading.system().advanced(by: running)
        reading.wall = reading.wall.addingTimeInterval(wall)
        return reading
    }

    /// Time passes: every clock moves.
    func advance(by seconds: TimeInterval) { offsets.withLock { $0.running += seconds } }

    /// The wall clock is set, forward or back; no time passes.
    func stepWall(by seconds: TimeInterval) { offsets.withLock { $0.wall += seconds } }
}

/// Keeps the reserve for root, as the daemon does for its admin and unlock peers.
private final class RootMayUseReserve: ConnectionReservePolicy {
    func mayUseReserve(_ peer: PeerCredentials) -> Bool { peer.uid == 0 }
}

/// The uids the next accepted connections get, in order.
private final class PeerQueue {
    var uids: [UInt32] = []
    func next() -> UInt32? { uids.isEmpty ? nil : uids.removeFirst() }
}

/// A server on a fresh socket with the echo handler, and a way to run the loop until
/// a condition holds (bounded, so a broken server fails the test instead of hanging it).
private final class Harness {
    let loop: EventLoop
    let handler: EchoHandler
    let server: VarlinkServer
    let directory: String
    let path: String
    let listener: FileDescriptor
    let logs = InMemoryLogHandler()
    let reservePolicy: (any ConnectionReservePolicy)?

    /// `peers` stands in for `SO_PEERCRED`: each accepted connection is the next uid in
    /// it (the test process's own credentials otherwise); `reservePolicy` (kept here:
    /// the server holds it weakly) decides which uids are admin or unlock peers.
    init(
        limits: ServerLimits = ServerLimits(), clock: TestClock? = nil, peers: PeerQueue? = nil,
        reservePolicy: (any ConnectionReservePolicy)? = nil
    ) throws {
        self.reservePolicy = reservePolicy
        loop = try clock.map { clock throws(SystemError) in try EventLoop(clock: { clock.now }) } ?? EventLoop()
        handler = EchoHandler(loop: loop)
        directory = NSTemporaryDirectory() + "widgetd-server-\(UUID().uuidString)"
        path = directory + "/run/widgetd.sock"
        listener = try UnixListener.listen(at: path).fd
        server = VarlinkServer(
            loop: loop, listeningSocket: listener, limits: limits, service: .widgetd, handler: handler,
            logger: Logger(handler: logs, level: .debug),
            credentials: { (fd) throws(SystemError) in
                var peer = try PeerCredentials.of(socket: fd)
                if let uid = peers?.next() { peer.uid = uid }
                return peer
            })
        server.reservePolicy = reservePolicy
        try server.start()
    }

    /// Runs the loop for `seconds` of real time, so that what the clients sent is read.
    func run(for seconds: TimeInterval) throws {
        let end = Date().addingTimeInterval(seconds)
        try run { Date() >= end }
    }

    func client() throws -> TestClient { try TestClient(path: path, loop: loop) }

    /// Runs the loop until `condition` holds; false if it did not within 10 s.
    @discardableResult
    func run(until condition: @escaping () -> Bool) throws -> Bool {
        var satisfied = false
        let deadline = Date().addingTimeInterval(10)
        func check() {
            if condition() {
                satisfied = true
                loop.stop()
            } else if Date() > deadline {
                loop.stop()
            } else {
                // Re-check after the loop handled what is ready now.
                loop.schedule(after: 0.001) { check() }
            }
        }
        loop.schedule(at: Date.distantPast) { check() }
        try loop.run()
        return satisfied
    }

    deinit {
        server.close()
        Syscall.close(listener)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite struct VarlinkServerTests {
    private let presentation = #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":"a/b"}}"#

    @Test func answersACall() throws {
        let harness = try Harness()
        let client = try harness.client()
        client.send(presentation)
        #expect(try harness.run { client.replies.count == 1 })
        #expect(client.replies == [#"{"parameters":{"widget":"a/b"}}"#])
    }

    /// The `send` calls the server's only connection made.
    private func sendCalls(_ harness: Harness) -> Int? {
        harness.server.connectionsForTesting.first?.sendCallCount
    }

    @Test func repliesToCallsReadInOneTurnLeaveInOneSendInTheirOrder() throws {
        let harness = try Harness()
        let client = try harness.client()
        let calls = (1...5).map { #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":"a/\#($0)"}}"# }
        client.send(bytes: calls.flatMap { Array($0.utf8) + [0] })
        #expect(try harness.run { client.replies.count == 5 })
        #expect(client.replies == (1...5).map { #"{"parameters":{"widget":"a/\#($0)"}}"# })
        #expect(sendCalls(harness) == 1)
    }

    @Test func cachedAndDecodedRepliesOfOneTurnLeaveInOneSendInTheirOrder() throws {
        let harness = try Harness()
        harness.handler.cachedRequest = Array(presentation.utf8)
        let client = try harness.client()
        let other = #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":"a/2"}}"#
        client.send(presentation, other, presentation, presentation)
        #expect(try harness.run { client.replies.count == 4 })
        // Each cached view was copied before the handler was called again and overwrote it.
        #expect(client.replies == [
            #"{"parameters":{"cached":1}}"#, #"{"parameters":{"widget":"a/2"}}"#,
            #"{"parameters":{"cached":2}}"#, #"{"parameters":{"cached":3}}"#,
        ])
        #expect(sendCalls(harness) == 1)
    }

    @Test func repliesGatheredBeforeAMessageThatClosesTheConnectionAreStillSent() throws {
        let harness = try Harness()
        harness.handler.cachedRequest = Array(presentation.utf8)
        let client = try harness.client()
        let other = #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":"a/2"}}"#
        client.send(presentation, other, "this is not json")
        #expect(try harness.run { client.isAtEOF })
        #expect(client.replies == [#"{"parameters":{"cached":1}}"#, #"{"parameters":{"widget":"a/2"}}"#])
    }

    @Test func aReplyGatheredInATurnLeavesBeforeWhatItsCallCausesOnOtherConnections() throws {
        let harness = try Harness()
        harness.handler.lockTellsMonitors = true
        let monitor = try harness.client()
        monitor.send(#"{"method":"io.widgetd.Device.Monitor","more":true}"#)
        #expect(try harness.run { monitor.replies.count == 1 })
        let locker = try harness.client()
        locker.send(#"{"method":"io.widgetd.Device.Lock"}"#)
        #expect(try harness.run { locker.replies.count == 1 && monitor.replies.count == 2 })
        let connections = harness.server.connectionsForTesting.sorted { $0.id.rawValue < $1.id.rawValue }
        try #require(connections.count == 2)
        // The Lock's reply was sent before the event it caused, as the service promises.
        #expect(connections[1].lastSendNumber < connections[0].lastSendNumber)
    }

    @Test func aLoneCachedReplyIsSentFromTheCacheOncePerTurn() throws {
        let harness = try Harness()
        harness.handler.cachedRequest = Array(presentation.utf8)
        let client = try harness.client()
        for round in 1...3 {
            client.send(presentation)
            #expect(try harness.run { client.replies.count == round })
        }
        #expect(client.replies == (1...3).map { #"{"parameters":{"cached":\#($0)}}"# })
        #expect(sendCalls(harness) == 3)
    }

    @Test func answersPipelinedCallsInOrderEvenWhenTheFirstIsAnsweredLater() throws {
        let harness = try Harness()
        let client = try harness.client()
        client.send(#"{"method":"io.widgetd.Device.Unlock","parameters":{"passcode":"1"}}"#, presentation,
                    #"{"method":"io.widgetd.Device.Lock"}"#)
        #expect(try harness.run { client.replies.count == 3 })
        #expect(client.replies == [
            #"{"parameters":{"unlocked":true}}"#, #"{"parameters":{"widget":"a/b"}}"#, #"{"parameters":{}}"#,
        ])
    }

    @Test func streamsRepliesWithContinuesAndHoldsLaterCallsUntilTheStreamEnds() throws {
        let harness = try Harness()
        let client = try harness.client()
        client.send(#"{"method":"io.widgetd.Host.Watch","more":true}"#, presentation)
        #expect(try harness.run { client.replies.count == 4 })
        #expect(client.replies == [
            #"{"continues":true,"parameters":{"n":1}}"#, #"{"continues":true,"parameters":{"n":2}}"#,
            #"{"parameters":{"n":3}}"#, #"{"parameters":{"widget":"a/b"}}"#,
        ])
    }

    @Test func onewayCallsGetNoReply() throws {
        let harness = try Harness()
        let client = try harness.client()
        client.send(#"{"method":"io.widgetd.Device.Lock","oneway":true}"#, presentation)
        #expect(try harness.run { client.replies.count == 1 })
        #expect(client.replies == [#"{"parameters":{"widget":"a/b"}}"#])
        #expect(harness.handler.calls == ["Lock", "GetPresentation"])
    }

    @Test func answersTheServiceInterfaceItself() throws {
        let harness = try Harness()
        let client = try harness.client()
        client.send(
            #"{"method":"org.varlink.service.GetInfo"}"#,
            #"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.widgetd.Host"}}"#,
            #"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"x.Y"}}"#,
            #"{"method":"org.varlink.service.GetInterfaceDescription"}"#)
        #expect(try harness.run { client.replies.count == 4 })
        let replies = client.replies
        let info = try JSONDecoder().decode([String: ServiceInfo].self, from: Data(replies[0].utf8))["parameters"]
        #expect(info == ServiceInfo.widgetd)
        let description = try JSONDecoder().decode(
            [String: InterfaceDescriptionReply].self, from: Data(replies[1].utf8))["parameters"]
        #expect(description?.description == InterfaceDefinition.host.text)
        #expect(replies[2] == #"{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"x.Y"}}"#)
        #expect(replies[3] == #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"interface"}}"#)
        #expect(harness.handler.calls.isEmpty)
    }

    @Test func answersUnknownInterfacesMethodsAndBadEnvelopesWithStandardErrors() throws {
        let harness = try Harness()
        let client = try harness.client()
        client.send(
            #"{"method":"com.example.Nothing.Call"}"#, #"{"method":"io.widgetd.Host.Nothing"}"#,
            #"{"method":"org.varlink.service.Nothing"}"#, #"{"more":true}"#,
            #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":7}}"#, presentation)
        #expect(try harness.run { client.replies.count == 6 })
        #expect(client.replies == [
            #"{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"com.example.Nothing"}}"#,
            #"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"io.widgetd.Host.Nothing"}}"#,
            #"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"org.varlink.service.Nothing"}}"#,
            #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"method"}}"#,
            #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"widget"}}"#,
            #"{"parameters":{"widget":"a/b"}}"#,
        ])
        #expect(!client.isAtEOF)
    }

    @Test func invalidJSONClosesOnlyThatConnection() throws {
        let harness = try Harness()
        let bad = try harness.client()
        let good = try harness.client()
        bad.send("this is not json")
        good.send(presentation)
        #expect(try harness.run { bad.isAtEOF && good.replies.count == 1 })
        #expect(bad.replies.isEmpty)
        good.send(presentation)
        #expect(try harness.run { good.replies.count == 2 })
        #expect(harness.server.connectionCount == 1)
        #expect(harness.handler.closed.count == 1)
        #expect(!harness.logs.records(event: "connection_closed").isEmpty)
    }

    /// Parameters are checked as the message is framed, for a method served or not,
    /// the service's own included, and also when the handler leaves them unchecked.
    @Test(arguments: [false, true])
    func parametersThatAreNotJSONCloseTheConnectionWhateverTheMethod(handlerLeavesThem: Bool) throws {
        let harness = try Harness()
        harness.handler.leavesParametersUnchecked = handlerLeavesThem
        var bad: [TestClient] = []
        for method in ["io.widgetd.Host.GetPresentation", "io.widgetd.Host.Nothing", "com.example.Nothing.Call", "org.varlink.service.GetInfo"] {
            for parameters in [#"{"widget":"a/b","x":[1,]}"#, #"{"widget":"a/\q"}"#, #"{"widget":7,"x":"\ud800"}"#] {
                let client = try harness.client()
                client.send(#"{"method":"\#(method)","parameters":\#(parameters)}"#)
                bad.append(client)
            }
        }
        let good = try harness.client()
        good.send(presentation)
        #expect(try harness.run { bad.allSatisfy(\.isAtEOF) && good.replies.count == 1 })
        #expect(bad.allSatisfy { $0.replies.isEmpty })
        #expect(harness.handler.calls == ["GetPresentation"])
    }

    @Test func oversizedMessageIsAnsweredThenTheConnectionClosed() throws {
        let harness = try Harness(limits: ServerLimits(maxMessageBytes: 64))
        let client = try harness.client()
        client.send(bytes: Array(repeating: UInt8(ascii: " "), count: 100))
        #expect(try harness.run { client.isAtEOF })
        #expect(client.replies == [#"{"error":"io.widgetd.TooLarge","parameters":{"limit":64}}"#])
        #expect(harness.server.connectionCount == 0)
    }

    @Test func aClientPipeliningThousandsOfCallsDoesNotStarveAnother() throws {
        let harness = try Harness()
        let greedy = try harness.client()
        let other = try harness.client()
        greedy.send(bytes: (0..<2_000).flatMap { _ in Array(presentation.utf8) + [0] })
        other.send(presentation)
        // Answered in turns of a few calls each: the other client does not wait for 2,000.
        #expect(try harness.run { other.replies.count == 1 })
        #expect(greedy.replies.count < 1_000)
        #expect(try harness.run { greedy.replies.count == 2_000 })
    }

    @Test func clientThatDoesNotReadIsDisconnected() throws {
        let harness = try Harness(limits: ServerLimits(maxOutputBytesPerConnection: 256 * 1024))
        harness.handler.largeReplyBytes = 200 * 1024
        let client = try harness.client()
        // Stop collecting replies: the client no longer reads.
        if let watch = client.watch { harness.loop.unwatch(watch) }
        client.send(bytes: Array(repeating: 0, count: 0) + (0..<40).flatMap { _ in Array(presentation.utf8) + [0] })
        #expect(try harness.run { harness.handler.closed.count == 1 })
        #expect(harness.server.connectionCount == 0)
    }

    @Test func aReplyLargerThanTheOutputLimitReachesAClientThatReads() throws {
        let harness = try Harness(limits: ServerLimits(maxOutputBytesPerConnection: 64 * 1024))
        // Sixteen times the limit, more than the socket buffer takes at once.
        harness.handler.largeReplyBytes = 1 << 20
        let client = try harness.client()
        client.send(presentation)
        #expect(try harness.run { client.replies.count == 1 })
        client.send(presentation)
        #expect(try harness.run { client.replies.count == 2 })
        let expected = #"{"parameters":{"widget":""# + String(repeating: "x", count: 1 << 20) + #""}}"#
        #expect(client.replies.allSatisfy { $0 == expected })
        #expect(!client.isAtEOF)
        #expect(harness.server.connectionCount == 1)
        #expect(harness.logs.records(event: "connection_closed").isEmpty)
    }

    @Test func aClientThatDoesNotReadALargeReplyIsCutOffOnceItsBacklogPassesTheLimit() throws {
        let harness = try Harness(limits: ServerLimits(maxOutputBytesPerConnection: 64 * 1024))
        harness.handler.largeReplyBytes = 1 << 20
        let client = try harness.client()
        if let watch = client.watch { harness.loop.unwatch(watch) }
        client.send(bytes: (0..<40).flatMap { _ in Array(presentation.utf8) + [0] })
        #expect(try harness.run { harness.handler.closed.count == 1 })
        #expect(harness.server.connectionCount == 0)
        // The first reply was taken (nothing was waiting), the second was not.
        #expect(harness.handler.calls.count == 2)
        #expect(!harness.logs.records(event: "connection_closed").isEmpty)
    }

    @Test func aCallsEventsCarryItsPeerFromTheConnection() throws {
        let harness = try Harness(peers: { let peers = PeerQueue(); peers.uids = [4242]; return peers }())
        let client = try harness.client()
        client.send(#"{"method":"io.widgetd.Device.Lock"}"#)
        #expect(try harness.run { client.replies.count == 1 })
        let records = harness.logs.records(event: "lock")
        #expect(records.count == 1)
        #expect(records.first?.metadata["peer.uid"] == "4242")
        #expect(records.first?.metadata["peer.pid"] == "\(getpid())")
        #expect(records.first?.metadata["connection.id"] != nil)
    }

    @Test func aRefusedConnectionIsLoggedWithItsPeer() throws {
        let peers = PeerQueue()
        peers.uids = [4242, 4242]
        let harness = try Harness(
            limits: ServerLimits(maxConnectionsPerUser: 1, reservedConnections: 0), peers: peers)
        let first = try harness.client()
        first.send(presentation)
        #expect(try harness.run { first.replies.count == 1 })
        let second = try harness.client()
        #expect(try harness.run { second.isAtEOF })
        #expect(harness.logs.records(event: "connection_refused").map { $0.metadata["peer.uid"] } == ["4242"])
    }

    @Test func connectionsBeyondTheLimitAreClosed() throws {
        let harness = try Harness(limits: ServerLimits(maxConnections: 1, reservedConnections: 0))
        let first = try harness.client()
        first.send(presentation)
        #expect(try harness.run { first.replies.count == 1 })
        let second = try harness.client()
        #expect(try harness.run { second.isAtEOF })
        #expect(harness.server.connectionCount == 1)
        #expect(!harness.logs.records(event: "connection_refused").isEmpty)
    }

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeoutAndNotBefore() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        let early = try harness.client()
        early.send(presentation)
        #expect(try harness.run { early.replies.count == 1 })
        clock.advance(by: 30)
        let late = try harness.client()
        late.send(presentation)
        #expect(try harness.run { late.replies.count == 1 })
        // 61 s after the first client's call, 31 s after the second's: only the first is due.
        clock.advance(by: 31)
        #expect(try harness.run { early.isAtEOF })
        #expect(harness.server.connectionCount == 1)
        #expect(!late.isAtEOF)
        #expect(harness.logs.records(event: "connection_idle").count == 1)
        clock.advance(by: 30)
        #expect(try harness.run { late.isAtEOF })
        #expect(harness.server.connectionCount == 0)
        #expect(harness.handler.closed.count == 2)
    }

    /// Seconds the wall clock is set by (NTP, a user): no time passes, so no idle
    /// connection is closed early, nor kept open late.
    static let wallSteps: [Double] = [3600, -3600]

    @Test(arguments: wallSteps)
    func theIdleTimeoutRunsOnRunningTimeWhereverTheWallClockIsSet(step: Double) throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        let client = try harness.client()
        client.send(presentation)
        #expect(try harness.run { client.replies.count == 1 })
        clock.stepWall(by: step)
        try harness.run(for: 0.05)
        #expect(!client.isAtEOF)
        #expect(harness.server.connectionCount == 1)
        clock.advance(by: 61)
        #expect(try harness.run { client.isAtEOF })
        #expect(harness.logs.records(event: "connection_idle").count == 1)
    }

    @Test func aStreamingConnectionIsNeverClosedForIdleness() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        let streaming = try harness.client()
        // A stream, and a call queued behind it: neither is idleness.
        streaming.send(#"{"method":"io.widgetd.Device.Monitor","more":true}"#, presentation)
        let idle = try harness.client()
        idle.send(presentation)
        #expect(try harness.run { streaming.replies.count == 1 && idle.replies.count == 1 })
        // An hour later the same pass over the connections closes the idle one only.
        clock.advance(by: 3600)
        #expect(try harness.run { idle.isAtEOF })
        #expect(!streaming.isAtEOF)
        #expect(harness.server.connectionCount == 1)
        #expect(streaming.replies == [#"{"continues":true,"parameters":{"event":1}}"#])
    }

    @Test func anIdleTimeoutOfZeroNeverClosesAConnection() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 0), clock: clock)
        #expect(!harness.server.closesIdleConnections)
        let timed = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        #expect(timed.server.closesIdleConnections)
        let first = try harness.client()
        first.send(presentation)
        #expect(try harness.run { first.replies.count == 1 })
        clock.advance(by: 86_400 * 365)
        // A call a year later is still answered on the same connection.
        first.send(presentation)
        #expect(try harness.run { first.replies.count == 2 })
        #expect(!first.isAtEOF)
        #expect(harness.logs.records(event: "connection_idle").isEmpty)
    }

    // MARK: A crowd of peers (issue 13, defect 6)

    @Test func oneUIDCannotHoldMoreThanMaxConnectionsPerUserWhileAnotherStillGetsIn() throws {
        let peers = PeerQueue()
        let harness = try Harness(limits: ServerLimits(maxConnections: 64, maxConnectionsPerUser: 32), peers: peers)
        var crowd: [TestClient] = []
        for count in 1...32 {
            peers.uids.append(1000)
            crowd.append(try harness.client())
            #expect(try harness.run { harness.server.connectionCount == count })
        }
        peers.uids.append(1000)
        let refused = try harness.client()
        #expect(try harness.run { refused.isAtEOF })
        #expect(harness.server.connectionCount == 32)
        #expect(harness.logs.records(event: "connection_refused").count == 1)
        peers.uids.append(1001)
        let other = try harness.client()
        other.send(presentation)
        #expect(try harness.run { other.replies.count == 1 })
        // A slot of the crowd's freed is its uid's again.
        crowd.removeLast()
        #expect(try harness.run { harness.server.connectionCount == 32 })
        peers.uids.append(1000)
        let again = try harness.client()
        again.send(presentation)
        #expect(try harness.run { again.replies.count == 1 })
    }

    @Test func theReservedConnectionsAreLeftToAdminAndUnlockPeers() throws {
        let peers = PeerQueue()
        let harness = try Harness(
            limits: ServerLimits(maxConnections: 10, maxConnectionsPerUser: 100, reservedConnections: 2), peers: peers,
            reservePolicy: RootMayUseReserve())
        var crowd: [TestClient] = []
        for count in 1...8 {
            peers.uids.append(1000 + UInt32(count))
            crowd.append(try harness.client())
            #expect(try harness.run { harness.server.connectionCount == count })
        }
        peers.uids.append(2000)
        let unprivileged = try harness.client()
        #expect(try harness.run { unprivileged.isAtEOF })
        #expect(harness.server.connectionCount == 8)
        var owners: [TestClient] = []
        for count in 9...10 {
            peers.uids.append(0)
            let owner = try harness.client()
            owner.send(#"{"method":"io.widgetd.Device.Lock"}"#)
            #expect(try harness.run { owner.replies.count == 1 })
            #expect(harness.server.connectionCount == count)
            owners.append(owner)
        }
        // The reserve is a part of MaxConnections, not beyond it.
        peers.uids.append(0)
        let beyond = try harness.client()
        #expect(try harness.run { beyond.isAtEOF })
    }

    @Test func adminAndUnlockPeersAreNotCountedAgainstTheirUID() throws {
        let peers = PeerQueue()
        let harness = try Harness(
            limits: ServerLimits(maxConnections: 16, maxConnectionsPerUser: 2), peers: peers, reservePolicy: RootMayUseReserve())
        var owners: [TestClient] = []
        for count in 1...4 {
            peers.uids.append(0)
            owners.append(try harness.client())
            #expect(try harness.run { harness.server.connectionCount == count })
        }
    }

    @Test func tricklingBytesDoesNotKeepAConnectionAlivePastTheIdleTimeout() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60, messageTimeoutSeconds: 0), clock: clock)
        let client = try harness.client()
        client.send(presentation)
        #expect(try harness.run { client.replies.count == 1 })
        // One byte of a message every 25 s: 75 s after its last complete message.
        for _ in 0..<3 {
            clock.advance(by: 25)
            client.send(bytes: [UInt8(ascii: " ")])
            try harness.run(for: 0.05)
        }
        #expect(try harness.run { client.isAtEOF })
        #expect(harness.logs.records(event: "connection_idle").count == 1)
    }

    @Test func callsQueuedBehindRepliesTheClientDoesNotReadDoNotKeepItPastTheIdleTimeout() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        // Replies too large for the socket buffer, well under the output limit together.
        harness.handler.largeReplyBytes = 100 << 10
        let client = try harness.client()
        if let watch = client.watch { harness.loop.unwatch(watch) }
        // Far more calls than one turn answers: the rest wait behind the unread replies.
        client.send(bytes: (0..<200).flatMap { _ in Array(presentation.utf8) + [0] })
        #expect(try harness.run { harness.handler.calls.count >= VarlinkConnection.callsPerTurn })
        try harness.run(for: 0.05)
        let answered = harness.handler.calls.count
        #expect(answered < 200)
        // The test clock is real time plus its jumps: 10 s of slack for a loaded machine.
        clock.advance(by: 50)
        try harness.run(for: 0.05)
        #expect(harness.server.connectionCount == 1)
        // 61 s without reading a byte: idle, whatever it queued.
        clock.advance(by: 11)
        #expect(try harness.run { harness.server.connectionCount == 0 })
        #expect(harness.logs.records(event: "connection_idle").count == 1)
        #expect(harness.handler.calls.count == answered)
    }

    @Test func aClientThatReadsSomeOfItsWaitingRepliesIsNotIdle() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        harness.handler.largeReplyBytes = 100 << 10
        let client = try harness.client()
        if let watch = client.watch { harness.loop.unwatch(watch) }
        client.send(bytes: (0..<200).flatMap { _ in Array(presentation.utf8) + [0] })
        #expect(try harness.run { harness.handler.calls.count >= VarlinkConnection.callsPerTurn })
        try harness.run(for: 0.05)
        // 50 s later the client reads what the socket holds, once; more replies wait.
        clock.advance(by: 50)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var drained = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(client.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { break }
            drained += count
        }
        #expect(drained > 0)
        try harness.run(for: 0.05)
        // 61 s after its calls, 11 s after it last read: not idle.
        clock.advance(by: 11)
        try harness.run(for: 0.05)
        #expect(harness.server.connectionCount == 1)
        // A timeout after it last read: idle.
        clock.advance(by: 50)
        #expect(try harness.run { harness.server.connectionCount == 0 })
        #expect(harness.logs.records(event: "connection_idle").count == 1)
    }

    @Test func aStreamsUnreadOutputIsIdleFromWhenItBeganToWaitNotFromTheCall() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        let client = try harness.client()
        if let watch = client.watch { harness.loop.unwatch(watch) }
        client.send(#"{"method":"io.widgetd.Device.Monitor","more":true}"#)
        #expect(try harness.run { harness.handler.monitors.count == 1 })
        // An hour of an open stream: not idle.
        clock.advance(by: 3600)
        try harness.run(for: 0.05)
        #expect(harness.server.connectionCount == 1)
        // An event larger than the socket buffer: it waits, a minute after the last sweep.
        clock.advance(by: 59)
        let monitor = harness.handler.monitors[0]
        harness.loop.schedule(at: Date.distantPast) { monitor.stream(["event": String(repeating: "x", count: 1 << 20)]) }
        try harness.run(for: 0.05)
        // The next sweep: the output has waited 2 s, not the hour since the call.
        clock.advance(by: 2)
        try harness.run(for: 0.05)
        #expect(harness.server.connectionCount == 1)
        // A timeout after it began to wait, unread: idle.
        clock.advance(by: 60)
        #expect(try harness.run { harness.server.connectionCount == 0 })
        #expect(harness.logs.records(event: "connection_idle").count == 1)
    }

    /// The attack of a client that pipelines calls and never reads, with replies small
    /// enough to all fit in the kernel's socket buffer: nothing waits unsent, but the
    /// socket stops being writable, so the calls left for a later turn (the backlog)
    /// wait for a writability that never comes. Neither its output nor its backlog
    /// moves: idle, though every call it made was answered.
    @Test func aBacklogWaitingBehindRepliesInTheKernelsBufferIsIdleOnceItStopsMoving() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        // 16 replies of 1 KiB a turn: after a few turns the socket holds more than the
        // quarter of its buffer that keeps it writable, and less than the buffer.
        harness.handler.largeReplyBytes = 1 << 10
        let client = try harness.client()
        if let watch = client.watch { harness.loop.unwatch(watch) }
        client.send(bytes: (0..<200).flatMap { _ in Array(presentation.utf8) + [0] })
        #expect(try harness.run { harness.handler.calls.count >= 2 * VarlinkConnection.callsPerTurn })
        try harness.run(for: 0.1)
        let answered = harness.handler.calls.count
        // The shape: calls wait in the backlog, and no reply waits unsent.
        #expect(answered < 200)
        #expect(harness.server.connectionsForTesting.first?.unsentByteCountForTesting == 0)
        clock.advance(by: 50)
        try harness.run(for: 0.05)
        #expect(harness.server.connectionCount == 1)
        // 61 s since the backlog last moved: idle.
        clock.advance(by: 11)
        #expect(try harness.run { harness.server.connectionCount == 0 })
        #expect(harness.logs.records(event: "connection_idle").count == 1)
        #expect(harness.handler.calls.count == answered)
    }

    /// A client that never reads but sends a call now and then: each is answered behind
    /// the unread replies, and none is activity. Idle a timeout after its output began
    /// to wait, whatever it sent since.
    @Test func callsSentWhileRepliesWaitUnreadDoNotKeepAConnectionPastTheIdleTimeout() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 60), clock: clock)
        harness.handler.largeReplyBytes = 100 << 10
        let client = try harness.client()
        if let watch = client.watch { harness.loop.unwatch(watch) }
        client.send(presentation, presentation, presentation, presentation)
        #expect(try harness.run { harness.handler.calls.count == 4 })
        try harness.run(for: 0.05)
        #expect((harness.server.connectionsForTesting.first?.unsentByteCountForTesting ?? 0) > 0)
        // A new call every 25 s: 75 s after the output began to wait.
        for count in 5...7 {
            clock.advance(by: 25)
            client.send(presentation)
            #expect(try harness.run { harness.handler.calls.count == count || harness.server.connectionCount == 0 })
        }
        #expect(try harness.run { harness.server.connectionCount == 0 })
        #expect(harness.logs.records(event: "connection_idle").count == 1)
    }

    @Test func aMessageNotFinishedWithinMessageTimeoutClosesItsConnection() throws {
        let clock = TestClock()
        let harness = try Harness(limits: ServerLimits(idleTimeoutSeconds: 600, messageTimeoutSeconds: 10), clock: clock)
        let trickling = try harness.client()
        let prompt = try harness.client()
        trickling.send(bytes: Array(#"{"method":"io.widgetd.Host.GetPre"#.utf8))
        try harness.run(for: 0.05)
        for byte in Array(#"sentation","paramet"#.utf8).prefix(4) {
            clock.advance(by: 3)
            trickling.send(bytes: [byte])
            try harness.run(for: 0.02)
        }
        // 12 s after the message began: past its deadline, though a byte came 0 s ago.
        #expect(try harness.run { trickling.isAtEOF })
        #expect(harness.logs.records(event: "message_timeout").count == 1)
        // A message sent in one piece is never late, however the clock moved.
        prompt.send(presentation)
        #expect(try harness.run { prompt.replies.count == 1 })
        #expect(!prompt.isAtEOF)
    }

    @Test func unfinishedMessagesOfAllConnectionsTogetherStayWithinMaxPendingInputBytes() throws {
        let limit = 512 << 10
        let harness = try Harness(limits: ServerLimits(maxMessageBytes: 1 << 20, maxPendingInputBytes: limit))
        // Sixteen unterminated 100 KB messages: 1.6 MB against a 512 KiB bound.
        let clients = try (0..<16).map { _ in try harness.client() }
        var most = 0
        for client in clients {
            client.send(bytes: Array(repeating: UInt8(ascii: " "), count: 100_000))
            try harness.run(for: 0.02)
            most = max(most, harness.server.pendingInputBytes)
        }
        try harness.run(for: 0.1)
        #expect(most <= limit)
        let closed = clients.filter(\.isAtEOF).count
        #expect(closed >= 8, "\(closed) of 16 closed")
        #expect(!harness.logs.records(event: "pending_input_exceeded").isEmpty)
        // What the closed ones held is free again: a new client is served.
        let fresh = try harness.client()
        fresh.send(presentation)
        #expect(try harness.run { fresh.replies.count == 1 })
        clients.forEach { shutdown($0.fd, Int32(SHUT_RDWR)) }
        #expect(try harness.run { harness.server.pendingInputBytes < 64 << 10 })
    }

    @Test func aBigMessageLeavesNoLargeBufferBehindOnceTaken() throws {
        let harness = try Harness()
        let client = try harness.client()
        let big = #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":""#
            + String(repeating: "x", count: 150_000) + #""}}"#
        client.send(big)
        #expect(try harness.run { client.replies.count == 1 })
        #expect(harness.server.pendingInputBytes <= 64 << 10)
    }

    // MARK: Unsent protected output (issue 13, defect 2)

    @Test func unsentOutputHoldingAPurgedClassIsDroppedAndItsConnectionClosed() throws {
        let harness = try Harness()
        harness.handler.largeReplyBytes = 1 << 20
        let holder = try harness.client()
        let plain = try harness.client()
        // Neither reads: a marked reply and an unmarked one wait in their output.
        for client in [holder, plain] { if let watch = client.watch { harness.loop.unwatch(watch) } }
        holder.send(#"{"method":"io.widgetd.Provider.GetTimeline","parameters":{"widget":"com.example.health/rings"}}"#)
        plain.send(presentation)
        #expect(try harness.run { harness.handler.calls.count == 2 })
        // Another class's purge leaves it alone.
        harness.server.dropUnsentOutput { ($0 as? TestTag)?.protectionClass == "completeUnlessOpen" }
        #expect(harness.server.connectionCount == 2)
        harness.server.dropUnsentOutput { ($0 as? TestTag)?.protectionClass == "complete" }
        #expect(harness.server.connectionCount == 1)
        #expect(harness.handler.closed.count == 1)
        let records = harness.logs.records(event: "connection_dropped_protected_output")
        #expect(records.count == 1)
        #expect(records.first?.metadata["class"] == "complete")
        #expect(records.first?.metadata["peer.uid"] == String(getuid()))
    }

    @Test func aProtectedReplyAlreadySentIsNotDropped() throws {
        let harness = try Harness()
        let client = try harness.client()
        client.send(#"{"method":"io.widgetd.Provider.GetTimeline","parameters":{"widget":"com.example.health/rings"}}"#)
        #expect(try harness.run { client.replies.count == 1 })
        harness.server.dropUnsentOutput { _ in true }
        #expect(harness.server.connectionCount == 1)
        client.send(presentation)
        #expect(try harness.run { client.replies.count == 2 })
    }

    @Test func closingTheClientEndsItsStreamAndTellsTheHandler() throws {
        let harness = try Harness()
        var client: TestClient? = try harness.client()
        client?.send(#"{"method":"io.widgetd.Host.Watch","more":true}"#)
        #expect(try harness.run { client?.replies.count == 3 })
        if let watch = client?.watch { harness.loop.unwatch(watch) }
        client = nil
        #expect(try harness.run { harness.handler.closed.count == 1 })
    }

    @Test func aClientThatStopsSendingStillGetsItsPendingReplyThenTheConnectionCloses() throws {
        let harness = try Harness()
        let client = try harness.client()
        client.send(#"{"method":"io.widgetd.Device.Unlock","parameters":{"passcode":"1"}}"#, presentation)
        shutdown(client.fd, Int32(SHUT_WR))
        #expect(try harness.run { client.isAtEOF })
        #expect(client.replies == [#"{"parameters":{"unlocked":true}}"#, #"{"parameters":{"widget":"a/b"}}"#])
        #expect(harness.server.connectionCount == 0)
    }

    @Test func readsThePeersCredentials() throws {
        let harness = try Harness()
        final class Recorder: VarlinkCallHandler {
            var peer: PeerCredentials?
            func handle(_ call: VarlinkCall, context: CallContext) {
                peer = context.peer
                context.reply([String: Int]())
            }
            func connectionClosed(_ id: ConnectionID) {}
        }
        let recorder = Recorder()
        let listener = try UnixListener.listen(at: harness.directory + "/other.sock").fd
        defer { Syscall.close(listener) }
        let server = VarlinkServer(
            loop: harness.loop, listeningSocket: listener, limits: ServerLimits(), service: .widgetd, handler: recorder,
            logger: Logger(handler: harness.logs))
        try server.start()
        defer { server.close() }
        let client = try TestClient(path: harness.directory + "/other.sock", loop: harness.loop)
        client.send(#"{"method":"io.widgetd.Device.Lock"}"#)
        #expect(try harness.run { client.replies.count == 1 })
        #expect(recorder.peer?.pid == getpid())
        #expect(recorder.peer?.uid == getuid())
        #expect(recorder.peer?.gid == getgid())
    }
}

/// A real Varlink client (python's) against the server: framing, GetInfo and the IDL
/// served by GetInterfaceDescription, which the client parses.
@Suite struct VarlinkServerInteroperabilityTests {
    private static let hasPythonVarlink: Bool = {
        (try? ChildProcess.run("/usr/bin/env", ["python3", "-c", "import varlink"]).status) == 0
    }()

    /// Runs the python varlink CLI against the harness's socket while the loop serves it.
    private func runClient(_ harness: Harness, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let output = try PipePair()
        let process = try ChildProcess(
            "/usr/bin/env", ["python3", "-m", "varlink.cli"] + arguments,
            standardOutput: output.write, standardError: output.write)
        output.closeWrite()
        let loop = harness.loop
        // The loop serves the client until it exits; its output (small) waits in the pipe.
        Thread { process.waitUntilExit(); loop.execute { loop.stop() } }.start()
        loop.schedule(at: Date(timeIntervalSinceNow: 20)) { loop.stop() }
        try loop.run()
        process.waitUntilExit()
        return (process.terminationStatus, output.readAll())
    }

    @Test(.enabled(if: hasPythonVarlink, "python3 -m pip install varlink"))
    func pythonClientFetchesAndParsesEveryInterface() throws {
        let harness = try Harness()
        for definition in InterfaceDefinition.all {
            let result = try runClient(harness, ["help", "unix:\(harness.path)/\(definition.name)"])
            #expect(result.status == 0)
            #expect(result.output.contains("interface \(definition.name)"), "\(result.output)")
        }
    }

    @Test(.enabled(if: hasPythonVarlink, "python3 -m pip install varlink"))
    func pythonClientCallsAMethod() throws {
        let harness = try Harness()
        let result = try runClient(
            harness, ["call", "unix:\(harness.path)/io.widgetd.Host.GetPresentation", #"{"widget":"a/b","surface":"homeScreen"}"#])
        #expect(result.status == 0)
        #expect(result.output.contains(#""widget": "a/b""#), "\(result.output)")
    }
}
