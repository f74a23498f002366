import CSystemd
import FoundationEssentials
import Glibc
import WidgetdPOSIX

/// logind on the system bus, through sd-bus, driven by the event loop: the bus's
/// descriptor in the loop's epoll, its timeout as a loop timer, `sd_bus_process` when
/// either fires. No thread and no polling; every call is asynchronous, so the loop never
/// waits for logind.
///
/// It speaks logind's vocabulary only: it subscribes to the signals the session monitor
/// follows, asks the two questions it needs (`ListSessions`, a seat's `ActiveSession`)
/// and hands everything over as ``SessionWatch/Observation``s.
///
/// Only logind speaks for logind (``LogindGate``): every match names
/// `org.freedesktop.login1` as the sender, which keeps other clients' broadcasts away, and
/// each signal is taken only if it is a broadcast from the name's current unique owner,
/// learnt from the bus driver. Anything else is handed to `failed` as a
/// ``RefusedSignal``, unread.
///
/// Threading: the loop's thread only.
final class LogindBus {
    /// A method call logind answered with an error, e.g.
    /// `org.freedesktop.DBus.Error.ServiceUnknown` where logind does not run.
    struct ErrorReply: Error, CustomStringConvertible {
        /// The D-Bus error name.
        let name: String
        /// The call.
        let method: String
        var description: String { "\(method): \(name)" }
    }

    /// A message that does not have the arguments logind's documentation gives.
    struct MalformedMessage: Error, CustomStringConvertible {
        /// The signal or reply.
        let member: String
        /// The sd-bus errno.
        let code: Int32
        var description: String { "\(member): \(String(cString: strerror(code)))" }
    }

    /// A signal that did not come from logind (``LogindGate``), or a message about
    /// logind's owner that did not come from the bus driver; its arguments were not read.
    struct RefusedSignal: Error, CustomStringConvertible {
        /// `Interface.Member`.
        let signal: String
        /// The unique name that sent it.
        let sender: String
        let reason: LogindGate.Refusal
        var description: String { "\(signal) from \(sender): \(reason.rawValue)" }
    }

    static let service = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"
    static let sessionInterface = "org.freedesktop.login1.Session"
    static let seatInterface = "org.freedesktop.login1.Seat"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    private let loop: EventLoop
    private var bus: OpaquePointer?
    /// Who logind is on this connection.
    private var gate = LogindGate()
    private var watch: WatchID?
    private var timer: TimerID?
    /// The match and call callbacks, held as long as their slot is.
    private var callbacks: [UInt64: Callback] = [:]
    private var nextCallbackID: UInt64 = 0
    /// Whether `sd_bus_process` is running: sd-bus refuses to be re-entered, so work a
    /// callback starts is picked up when the dispatch ends.
    private var isDispatching = false
    /// Call slots whose reply came, released once the dispatch is over.
    private var finished: [Callback] = []
    /// What logind said.
    private let observe: (SessionWatch.Observation) -> Void
    /// A call failed, a message did not parse, or the connection was lost.
    private let failed: (any Error) -> Void

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else
    /// `/run/dbus/system_bus_socket`) and starts serving it on `loop`.
    ///
    /// Throws when there is no bus to connect to (a container without D-Bus). The
    /// connection's handshake goes on asynchronously; a failure there arrives at `failed`.
    init(
        loop: EventLoop, observe: @escaping (SessionWatch.Observation) -> Void, failed: @escaping (any Error) -> Void
    ) throws(SystemError) {
        self.loop = loop
        self.observe = observe
        self.failed = failed
        var bus: OpaquePointer?
        let opened = sd_bus_open_system(&bus)
        guard opened >= 0, let bus else { throw SystemError("sd_bus_open_system", code: -opened) }
        self.bus = bus
        let fd = sd_bus_get_fd(bus)
        guard fd >= 0 else {
            close()
            throw SystemError("sd_bus_get_fd", code: -fd)
        }
        do throws(SystemError) {
            watch = try loop.watch(FileDescriptor(rawValue: fd), for: .readable) { [unowned self] _ in dispatch() }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Drops every subscription and the connection; nothing is observed after it.
    func close() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        if let timer { loop.cancel(timer) }
        timer = nil
        for callback in callbacks.values { callback.release() }
        callbacks.removeAll()
        for callback in finished { callback.release() }
        finished.removeAll()
        if let bus { _ = sd_bus_close_unref(bus) }
        bus = nil
    }

    // MARK: What is followed

    /// Subscribes to the manager's signals (`PrepareForSleep`, `SessionNew`,
    /// `SessionRemoved`), every session's `Lock`, `Unlock` and property changes, logind's
    /// (re)appearance on the bus, and, with `seat`, that seat's property changes; and asks
    /// the bus driver who owns logind's name, the only sender those signals count from.
    ///
    /// In this order, which the bus daemon keeps (it handles one connection's messages in
    /// turn, and delivers to it in turn): the match on `NameOwnerChanged`, then
    /// `GetNameOwner`, then logind's matches. So every change of owner after the driver's
    /// answer arrives after it, and no signal of logind's can arrive before it.
    func subscribe(seat: String?) throws(SystemError) {
        try addMatch(
            "type='signal',sender='\(LogindGate.busDriver)',path='/org/freedesktop/DBus',interface='\(LogindGate.busDriver)',member='NameOwnerChanged',arg0='\(Self.service)'"
        ) { [unowned self] m in
            // (name, old owner, new owner): a new owner is logind (re)started.
            var reader = m.reader
            guard (try? reader.string()) == Self.service, (try? reader.string()) != nil,
                  let owner = try? reader.string()
            else { return }
            switch gate.nameOwnerChanged(newOwner: owner, sender: m.sender, destination: m.destination) {
            case .started: observe(.logindStarted)
            case .gone: break
            case .refused(let reason): refuse(m, reason)
            }
        }
        try call(
            to: LogindGate.busDriver, "/org/freedesktop/DBus", LogindGate.busDriver, "GetNameOwner",
            arguments: [Self.service]
        ) { [unowned self] (m: BusMessage) throws(MalformedMessage) in
            var reader = m.reader
            if let reason = gate.nameOwnerReply(try reader.string(), sender: m.sender) { refuse(m, reason) }
        }
        let login1 = "type='signal',sender='\(Self.service)'"
        try addLogindMatch("\(login1),path='\(Self.managerPath)',interface='\(Self.managerInterface)'") { [unowned self] m in
            managerSignal(m)
        }
        try addLogindMatch("\(login1),interface='\(Self.sessionInterface)'") { [unowned self] m in
            switch m.member {
            case "Lock": if let path = m.path { observe(.lock(path: path)) }
            case "Unlock": if let path = m.path { observe(.unlock(path: path)) }
            default: break
            }
        }
        let propertiesChanged = "\(login1),interface='\(Self.propertiesInterface)',member='PropertiesChanged'"
        try addLogindMatch("\(propertiesChanged),arg0='\(Self.sessionInterface)'") { [unowned self] m in
            sessionPropertiesChanged(m)
        }
        if let seat {
            try addLogindMatch("\(propertiesChanged),path='\(Self.seatPath(seat))',arg0='\(Self.seatInterface)'") {
                [unowned self] _ in observe(.seatChanged)
            }
        }
        afterCall()
    }

    /// A match on logind's signals: `body` sees only those ``LogindGate`` lets through.
    private func addLogindMatch(_ rule: String, _ body: @escaping (BusMessage) -> Void) throws(SystemError) {
        try addMatch(rule) { [unowned self] m in
            if let reason = gate.refusal(sender: m.sender, destination: m.destination) { return refuse(m, reason) }
            body(m)
        }
    }

    private func refuse(_ m: BusMessage, _ reason: LogindGate.Refusal) {
        failed(RefusedSignal(signal: "\(m.interface ?? "").\(m.member)", sender: m.sender ?? "", reason: reason))
    }

    /// Asks `ListSessions`; the answer is observed as `.sessionList`.
    func listSessions() throws(SystemError) {
        try call(to: Self.service, Self.managerPath, Self.managerInterface, "ListSessions") {
            [unowned self] (m: BusMessage) throws(MalformedMessage) in
            var reader = m.reader
            var sessions: [LogindSession] = []
            // a(susso): id, uid, user name, seat, object path.
            try reader.enter("a", "(susso)")
            while try reader.enterIfPresent("r", "susso") {
                let id = try reader.string()
                let uid = try reader.uint32()
                _ = try reader.string()
                _ = try reader.string()
                let path = try reader.string(objectPath: true)
                try reader.exit()
                sessions.append(LogindSession(id: id, path: path, uid: uid))
            }
            try reader.exit()
            observe(.sessionList(sessions))
        }
    }

    /// Reads `seat`'s `ActiveSession`; observed as `.activeSession`.
    func readActiveSession(seat: String) throws(SystemError) {
        try call(
            to: Self.service, Self.seatPath(seat), Self.propertiesInterface, "Get",
            arguments: [Self.seatInterface, "ActiveSession"]
        ) { [unowned self] (m: BusMessage) throws(MalformedMessage) in
            var reader = m.reader
            try reader.enter("v", "(so)")
            observe(.activeSession(try Self.sessionReference(&reader)))
            try reader.exit()
        }
    }

    // MARK: Signals

    private func managerSignal(_ m: BusMessage) {
        var reader = m.reader
        do throws(MalformedMessage) {
            switch m.member {
            case "PrepareForSleep": observe(.prepareForSleep(try reader.bool()))
            case "SessionNew":
                if let session = try Self.session(&reader) { observe(.sessionNew(session)) }
            case "SessionRemoved":
                if let session = try Self.session(&reader) { observe(.sessionRemoved(session)) }
            default: break
            }
        } catch {
            failed(error)
        }
    }

    /// `PropertiesChanged(interface, changed a{sv}, invalidated as)` of a session: its
    /// `LockedHint` and `State`, if they are among the changes.
    private func sessionPropertiesChanged(_ m: BusMessage) {
        guard let path = m.path else { return }
        var reader = m.reader
        do throws(MalformedMessage) {
            _ = try reader.string()
            try reader.enter("a", "{sv}")
            while try reader.enterIfPresent("e", "sv") {
                switch try reader.string() {
                case "LockedHint":
                    try reader.enter("v", "b")
                    observe(.lockedHint(path: path, try reader.bool()))
                    try reader.exit()
                case "State":
                    try reader.enter("v", "s")
                    observe(.state(path: path, try reader.string()))
                    try reader.exit()
                default:
                    try reader.skip("v")
                }
                try reader.exit()
            }
            try reader.exit()
        } catch {
            failed(error)
        }
    }

    /// A `(so)` session reference, `nil` for logind's "none" (`""`, `/`).
    private static func sessionReference(_ reader: inout BusMessage.Reader) throws(MalformedMessage) -> LogindSession? {
        try reader.enter("r", "so")
        let session = try Self.session(&reader)
        try reader.exit()
        return session
    }

    /// An `so` pair (id, object path), `nil` for logind's "none" (`""`, `/`).
    private static func session(_ reader: inout BusMessage.Reader) throws(MalformedMessage) -> LogindSession? {
        let id = try reader.string()
        let path = try reader.string(objectPath: true)
        return id.isEmpty ? nil : LogindSession(id: id, path: path)
    }

    /// The object path of a seat: `seat0` is a valid path element as it is.
    static func seatPath(_ seat: String) -> String { "/org/freedesktop/login1/seat/\(seat)" }

    // MARK: sd-bus

    /// One callback, and the slot that keeps sd-bus calling it.
    private final class Callback {
        let body: (BusMessage) -> Void
        var slot: OpaquePointer?
        init(_ body: @escaping (BusMessage) -> Void) { self.body = body }
        func release() {
            if let slot { _ = sd_bus_slot_unref(slot) }
            slot = nil
        }
    }

    /// sd-bus calls a C function with the callback as its user data.
    private static let trampoline: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        Unmanaged<Callback>.fromOpaque(userdata).takeUnretainedValue().body(BusMessage(raw: message))
        // 0: not handled exclusively, other matches still see the message.
        return 0
    }

    private func addMatch(_ rule: String, _ body: @escaping (BusMessage) -> Void) throws(SystemError) {
        guard let bus else { return }
        let callback = Callback(body)
        nextCallbackID += 1
        // Asynchronous: the AddMatch goes out with the handshake; a refused match ends
        // the connection (no install callback), which the next dispatch reports.
        let result = sd_bus_add_match_async(
            bus, &callback.slot, rule, Self.trampoline, nil, Unmanaged.passUnretained(callback).toOpaque())
        guard result >= 0 else { throw SystemError("sd_bus_add_match_async", code: -result) }
        callbacks[nextCallbackID] = callback
    }

    /// Calls a method of `destination` (logind, or the bus driver) with string
    /// arguments; `parse` reads the reply on the loop.
    private func call(
        to destination: String, _ path: String, _ interface: String, _ member: String, arguments: [String] = [],
        parse: @escaping (BusMessage) throws(MalformedMessage) -> Void
    ) throws(SystemError) {
        guard let bus else { return }
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw SystemError("sd_bus_message_new_method_call", code: -result) }
        defer { sd_bus_message_unref(message) }
        for argument in arguments {
            result = argument.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
            guard result >= 0 else { throw SystemError("sd_bus_message_append_basic", code: -result) }
        }
        let method = "\(interface).\(member)"
        nextCallbackID += 1
        let id = nextCallbackID
        let callback = Callback { [unowned self] reply in
            // One reply per call: its slot goes once the dispatch is over.
            if let done = callbacks.removeValue(forKey: id) { finished.append(done) }
            if let error = reply.errorName { return failed(ErrorReply(name: error, method: method)) }
            do { try parse(reply) } catch { failed(error) }
        }
        // 0: sd-bus's default timeout (25 s); the loop does not wait for it.
        result = sd_bus_call_async(
            bus, &callback.slot, message, Self.trampoline, Unmanaged.passUnretained(callback).toOpaque(), 0)
        guard result >= 0 else { throw SystemError("sd_bus_call_async", code: -result) }
        callbacks[id] = callback
        afterCall()
    }

    /// Outside a dispatch, what was just queued may need the descriptor watched for
    /// writing, or a new timeout.
    private func afterCall() {
        if !isDispatching { rearm() }
    }

    /// Processes everything sd-bus has to do now, then watches for what it waits for.
    private func dispatch() {
        guard let bus else { return }
        isDispatching = true
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 {
                isDispatching = false
                close()
                return failed(SystemError("sd_bus_process", code: -result))
            }
            // A callback may have closed the connection.
            if result == 0 || self.bus == nil { break }
        }
        isDispatching = false
        for callback in finished { callback.release() }
        finished.removeAll()
        rearm()
    }

    /// Watches the descriptor for what sd-bus waits for, and sets its timeout as a loop timer.
    private func rearm() {
        guard let bus, let watch else { return }
        let events = sd_bus_get_events(bus)
        var interest: IOEvents = .readable
        if events > 0, Int16(events) & Int16(POLLOUT) != 0 { interest.insert(.writable) }
        do { try loop.update(watch, interest: interest) } catch {
            close()
            return failed(error)
        }
        if let timer { loop.cancel(timer) }
        timer = nil
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return }
        // sd-bus's timeouts are CLOCK_MONOTONIC microseconds: a duration from now on the loop's monotonic clock.
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        let seconds = deadline > nowMicroseconds ? Double(deadline - nowMicroseconds) / 1_000_000 : 0
        timer = loop.schedule(after: seconds) { [unowned self] in
            timer = nil
            dispatch()
        }
    }
}

/// A received sd-bus message, borrowed for the callback it was passed to.
struct BusMessage {
    let raw: OpaquePointer

    /// The object path it concerns.
    var path: String? { sd_bus_message_get_path(raw).map { String(cString: $0) } }
    /// The unique name of the connection that sent it, as the bus daemon wrote it
    /// (`org.freedesktop.DBus` for the bus driver); a client cannot choose it.
    var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }
    /// The name it was addressed to; `nil` for a broadcast.
    var destination: String? { sd_bus_message_get_destination(raw).map { String(cString: $0) } }
    /// The interface it belongs to.
    var interface: String? { sd_bus_message_get_interface(raw).map { String(cString: $0) } }
    /// The signal's or method's name.
    var member: String { sd_bus_message_get_member(raw).map { String(cString: $0) } ?? "" }
    /// The error name, if this is an error reply.
    var errorName: String? {
        guard sd_bus_message_is_method_error(raw, nil) > 0 else { return nil }
        return sd_bus_message_get_error(raw)?.pointee.name.map { String(cString: $0) } ?? "unknown"
    }

    /// Reads the arguments in order.
    var reader: Reader { Reader(message: self) }

    /// Reads a message's arguments (sd-bus's read cursor), each as the type it must be.
    struct Reader {
        let message: BusMessage
        private var raw: OpaquePointer { message.raw }

        private func check(_ result: Int32) throws(LogindBus.MalformedMessage) {
            guard result >= 0 else { throw LogindBus.MalformedMessage(member: message.member, code: -result) }
        }

        private static func type(_ character: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: character)) }

        /// A string (`s`), or with `objectPath` an object path (`o`).
        mutating func string(objectPath: Bool = false) throws(LogindBus.MalformedMessage) -> String {
            var value: UnsafePointer<CChar>?
            let result = sd_bus_message_read_basic(raw, Self.type(objectPath ? "o" : "s"), &value)
            try check(result == 0 ? -EBADMSG : result)
            guard let value else { throw LogindBus.MalformedMessage(member: message.member, code: EBADMSG) }
            return String(cString: value)
        }

        /// A boolean (`b`).
        mutating func bool() throws(LogindBus.MalformedMessage) -> Bool {
            var value: Int32 = 0
            let result = sd_bus_message_read_basic(raw, Self.type("b"), &value)
            try check(result == 0 ? -EBADMSG : result)
            return value != 0
        }

        /// A 32-bit unsigned integer (`u`).
        mutating func uint32() throws(LogindBus.MalformedMessage) -> UInt32 {
            var value: UInt32 = 0
            let result = sd_bus_message_read_basic(raw, Self.type("u"), &value)
            try check(result == 0 ? -EBADMSG : result)
            return value
        }

        /// Enters a container that must be there: `a`rray, `v`ariant, st`r`uct, dict `e`ntry.
        mutating func enter(_ type: Unicode.Scalar, _ contents: String) throws(LogindBus.MalformedMessage) {
            guard try enterIfPresent(type, contents) else {
                throw LogindBus.MalformedMessage(member: message.member, code: EBADMSG)
            }
        }

        /// Enters the next container; false at the end of the enclosing array.
        mutating func enterIfPresent(_ type: Unicode.Scalar, _ contents: String) throws(LogindBus.MalformedMessage) -> Bool {
            let result = sd_bus_message_enter_container(raw, Self.type(type), contents)
            try check(result)
            return result > 0
        }

        /// Leaves the container entered last.
        mutating func exit() throws(LogindBus.MalformedMessage) {
            try check(sd_bus_message_exit_container(raw))
        }

        /// Skips values of the given signature.
        mutating func skip(_ types: String) throws(LogindBus.MalformedMessage) {
            try check(sd_bus_message_skip(raw, types))
        }
    }
}
