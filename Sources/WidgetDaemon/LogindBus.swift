import CSystemd
import FoundationEssentials
import Glibc
import WidgetdPOSIX

/// logind on the system bus, over a ``BusConnection`` (sd-bus on the event loop: no
/// thread, no polling; every call is asynchronous, so the loop never waits for logind).
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
    /// A method call logind answered with an error.
    typealias ErrorReply = BusConnection.ErrorReply
    /// A message that does not have the arguments logind's documentation gives.
    typealias MalformedMessage = BusConnection.MalformedMessage

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

    /// The system bus.
    private let connection: BusConnection
    /// Who logind is on this connection.
    private var gate = LogindGate()
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
        self.observe = observe
        self.failed = failed
        connection = try BusConnection(.system, loop: loop, failed: failed)
    }

    /// Drops every subscription and the connection; nothing is observed after it.
    func close() { connection.close() }

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

    private func addMatch(_ rule: String, _ body: @escaping (BusMessage) -> Void) throws(SystemError) {
        try connection.addMatch(rule, body)
    }

    private func call(
        to destination: String, _ path: String, _ interface: String, _ member: String, arguments: [String] = [],
        parse: @escaping (BusMessage) throws(MalformedMessage) -> Void
    ) throws(SystemError) {
        try connection.call(to: destination, path, interface, member, arguments: arguments, parse: parse)
    }

    private func afterCall() { connection.afterCall() }
}
