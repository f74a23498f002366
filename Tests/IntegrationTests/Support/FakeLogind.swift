import CSystemd
import Foundation
import Glibc
import TestSupport

/// A private `dbus-daemon` with a small logind on it: `org.freedesktop.login1` answering
/// `ListSessions` and seat0's `ActiveSession`, and raising the signals widgetd follows
/// (including `PrepareForSleep`, which no container can raise). widgetd is pointed at it
/// with `DBUS_SYSTEM_BUS_ADDRESS`.
///
/// The fake serves on a thread of its own; every sd-bus call is made under one lock.
final class FakeLogind: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Session {
        let id: String
        let uid: UInt32
        var path: String { "/org/freedesktop/login1/session/_3\(id.first!)" + id.dropFirst() }
    }

    static let dbusDaemon = "/usr/bin/dbus-daemon"
    /// systemd's policy for `org.freedesktop.login1` on the system bus.
    static let login1Policy = "/usr/share/dbus-1/system.d/org.freedesktop.login1.conf"
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: dbusDaemon) && FileManager.default.fileExists(atPath: login1Policy)
    }

    let directory: URL
    /// The bus address to give widgetd.
    var address: String { "unix:path=\(directory.path)/bus" }
    private var daemon: ChildProcess
    private let configFile: URL
    private let lock = NSLock()
    private var bus: OpaquePointer?
    private var sessions: [Session]
    private var activeSession: String?
    private var serving = true
    private var thread: Thread?

    /// Starts the bus and the fake with `sessions`, `active` being seat0's active one.
    init(sessions: [Session], active: String?) throws {
        self.sessions = sessions
        activeSession = active
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("fake-logind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Reachable by a daemon run as another user.
        chmod(directory.path, 0o755)
        // Debian 12's system bus: its stock default policy (/usr/share/dbus-1/system.conf)
        // and systemd's login1 policy, under which only root owns the name and any client
        // may send a signal to any other (the attack the sender checks stop).
        let owner = getuid() == 0 ? "" : """
              <policy user="\(String(cString: getpwuid(getuid())!.pointee.pw_name))">
                <allow own="org.freedesktop.login1"/>
              </policy>
            """
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <listen>unix:path=\(directory.path)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <deny own="*"/>
                <deny send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_requested_reply="true" send_type="method_return"/>
                <allow send_requested_reply="true" send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
                <allow receive_type="signal"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus" />
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
                <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
                      send_member="UpdateActivationEnvironment"/>
                <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
              </policy>
              <include ignore_missing="no">\(Self.login1Policy)</include>
            \(owner)
            </busconfig>
            """
        configFile = directory.appendingPathComponent("bus.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        daemon = try Self.startBusDaemon(configFile)
        try connectOnceListening()
        // The loop must not keep the fake alive: a method called on `unowned self` holds
        // a strong reference for as long as it runs, so `deinit` (which stops the loop)
        // never came, and every test left its dbus-daemon running after the test process
        // (14 a suite run, each holding an inotify instance, until the container's systemd
        // could no longer boot). `deinit` waits for the thread, so the fake outlives it.
        let unretained = Unmanaged.passUnretained(self)
        let thread = Thread { unretained._withUnsafeGuaranteedRef { $0.serve() } }
        self.thread = thread
        thread.start()
    }

    deinit {
        lock.withLock { serving = false }
        while thread?.isFinished == false { usleep(5_000) }
        if let bus { sd_bus_flush_close_unref(bus) }
        if let retired { sd_bus_close_unref(retired) }
        if let successor { sd_bus_close_unref(successor) }
        daemon.signal(SIGTERM)
        daemon.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts a bus daemon on `configFile` and waits for its socket.
    private static func startBusDaemon(_ configFile: URL) throws -> ChildProcess {
        let daemon = try ChildProcess(dbusDaemon, ["--config-file=\(configFile.path)", "--nofork", "--nopidfile"])
        let socket = configFile.deletingLastPathComponent().appendingPathComponent("bus").path
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        chmod(socket, 0o777)
        return daemon
    }

    /// Connects the fake to the bus, retrying while the socket is bound but not yet listening.
    private func connectOnceListening() throws {
        for attempt in 1...100 {
            do {
                try connect()
                return
            } catch where attempt < 100 {
                if let bus { sd_bus_close_unref(bus) }
                bus = nil
                usleep(10_000)
            }
        }
    }

    /// Stops the bus daemon, as when the system bus goes away: every client loses its connection.
    func stopBus() {
        lock.withLock {
            if let bus { sd_bus_close_unref(bus) }
            bus = nil
        }
        daemon.signal(SIGTERM)
        daemon.waitUntilExit()
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("bus"))
    }

    /// Starts the bus daemon again at the same address, with the fake logind on it.
    func startBus() throws {
        daemon = try Self.startBusDaemon(configFile)
        try lock.withLock { try connectOnceListening() }
    }

    private func connect() throws {
        var bus: OpaquePointer?
        try check(sd_bus_new(&bus), "sd_bus_new")
        self.bus = bus
        try check(sd_bus_set_address(bus, address), "sd_bus_set_address")
        try check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
        try check(sd_bus_start(bus), "sd_bus_start")
        try check(sd_bus_request_name(bus, "org.freedesktop.login1", 0), "sd_bus_request_name")
        let handler: sd_bus_message_handler_t = { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            return Unmanaged<FakeLogind>.fromOpaque(userdata).takeUnretainedValue().answer(message)
        }
        try check(
            sd_bus_add_fallback(bus, nil, "/org/freedesktop/login1", handler, Unmanaged.passUnretained(self).toOpaque()),
            "sd_bus_add_fallback")
    }

    private func check(_ result: Int32, _ operation: String) throws {
        guard result >= 0 else { throw Failure(description: "\(operation): \(String(cString: strerror(-result)))") }
    }

    private func serve() {
        while true {
            var pollfd = pollfd()
            let running: Bool? = lock.withLock {
                guard serving else { return false }
                // Between `stopBus` and `startBus` there is no connection to serve.
                guard let bus else { return nil }
                while sd_bus_process(bus, nil) > 0 {}
                pollfd = Glibc.pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0)
                return true
            }
            guard let running else {
                usleep(10_000)
                continue
            }
            guard running else { return }
            // Short, so that a send from the test thread is flushed soon even if it was partial.
            _ = poll(&pollfd, 1, 10)
        }
    }

    // MARK: Methods

    private static func type(_ character: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: character)) }

    /// Answers `ListSessions` and `Properties.Get(Seat, ActiveSession)`; called under the lock.
    private func answer(_ call: OpaquePointer) -> Int32 {
        let member = sd_bus_message_get_member(call).map { String(cString: $0) }
        let interface = sd_bus_message_get_interface(call).map { String(cString: $0) }
        var reply: OpaquePointer?
        switch (interface, member) {
        case ("org.freedesktop.login1.Manager", "ListSessions"):
            sd_bus_message_new_method_return(call, &reply)
            sd_bus_message_open_container(reply, Self.type("a"), "(susso)")
            for session in sessions {
                sd_bus_message_open_container(reply, Self.type("r"), "susso")
                append(reply, "s", session.id)
                var uid = session.uid
                sd_bus_message_append_basic(reply, Self.type("u"), &uid)
                append(reply, "s", "user\(session.uid)")
                append(reply, "s", "seat0")
                append(reply, "o", session.path)
                sd_bus_message_close_container(reply)
            }
            sd_bus_message_close_container(reply)
        case ("org.freedesktop.DBus.Properties", "Get"):
            sd_bus_message_new_method_return(call, &reply)
            sd_bus_message_open_container(reply, Self.type("v"), "(so)")
            sd_bus_message_open_container(reply, Self.type("r"), "so")
            let active = sessions.first { $0.id == activeSession }
            append(reply, "s", active?.id ?? "")
            append(reply, "o", active?.path ?? "/")
            sd_bus_message_close_container(reply)
            sd_bus_message_close_container(reply)
        default:
            return 0
        }
        sd_bus_send(bus, reply, nil)
        sd_bus_message_unref(reply)
        return 1
    }

    private func append(_ message: OpaquePointer?, _ type: Unicode.Scalar, _ text: String) {
        _ = text.withCString { sd_bus_message_append_basic(message, Self.type(type), $0) }
    }

    // MARK: Signals

    /// Sends a signal built by `body`, from logind's own connection.
    private func signal(_ path: String, _ interface: String, _ member: String, _ body: (OpaquePointer?) -> Void = { _ in }) {
        lock.withLock {
            var message: OpaquePointer?
            sd_bus_message_new_signal(bus, &message, path, interface, member)
            body(message)
            sd_bus_send(bus, message, nil)
            sd_bus_message_unref(message)
            sd_bus_flush(bus)
        }
    }

    private func session(_ id: String) -> Session { sessions.first { $0.id == id } ?? Session(id: id, uid: 0) }

    /// `loginctl lock-session ID`.
    func lockSession(_ id: String) {
        signal(session(id).path, "org.freedesktop.login1.Session", "Lock")
    }

    /// `loginctl unlock-session ID`.
    func unlockSession(_ id: String) {
        signal(session(id).path, "org.freedesktop.login1.Session", "Unlock")
    }

    /// `SetLockedHint`: the session's `PropertiesChanged`.
    func setLockedHint(_ id: String, _ locked: Bool) {
        signal(session(id).path, "org.freedesktop.DBus.Properties", "PropertiesChanged") { m in
            append(m, "s", "org.freedesktop.login1.Session")
            sd_bus_message_open_container(m, Self.type("a"), "{sv}")
            sd_bus_message_open_container(m, Self.type("e"), "sv")
            append(m, "s", "LockedHint")
            sd_bus_message_open_container(m, Self.type("v"), "b")
            var value: Int32 = locked ? 1 : 0
            sd_bus_message_append_basic(m, Self.type("b"), &value)
            sd_bus_message_close_container(m)
            sd_bus_message_close_container(m)
            sd_bus_message_close_container(m)
            sd_bus_message_open_container(m, Self.type("a"), "s")
            sd_bus_message_close_container(m)
        }
    }

    /// `PrepareForSleep(sleeping)` on the manager.
    func prepareForSleep(_ sleeping: Bool) {
        signal("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep") { m in
            var value: Int32 = sleeping ? 1 : 0
            sd_bus_message_append_basic(m, Self.type("b"), &value)
        }
    }

    /// A session ends: gone from `ListSessions`, then `SessionRemoved`.
    func removeSession(_ id: String) {
        let removed = session(id)
        lock.withLock { sessions.removeAll { $0.id == id } }
        signal("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "SessionRemoved") { m in
            append(m, "s", removed.id)
            append(m, "o", removed.path)
        }
    }

    /// A session starts and becomes seat0's active one: `SessionNew`, then the seat's
    /// `PropertiesChanged`. The daemon sees it in `sessions` in every scope that
    /// includes it, which makes it a barrier: every signal sent before was handled.
    func addActiveSession(_ new: Session) {
        lock.withLock {
            sessions.append(new)
            activeSession = new.id
        }
        signal("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "SessionNew") { m in
            append(m, "s", new.id)
            append(m, "o", new.path)
        }
        signal("/org/freedesktop/login1/seat/seat0", "org.freedesktop.DBus.Properties", "PropertiesChanged") { m in
            append(m, "s", "org.freedesktop.login1.Seat")
            sd_bus_message_open_container(m, Self.type("a"), "{sv}")
            sd_bus_message_close_container(m)
            sd_bus_message_open_container(m, Self.type("a"), "s")
            append(m, "s", "ActiveSession")
            sd_bus_message_close_container(m)
        }
    }

    // MARK: Forgeries

    /// A signal in logind's name that a local attacker sends straight to widgetd's unique
    /// name (a unicast), which the bus delivers under the stock policy.
    enum Forgery: String, CaseIterable, CustomStringConvertible {
        /// `Session.Lock` of the session.
        case lock
        /// `PrepareForSleep(true)`.
        case sleep
        /// `SessionRemoved` of the session.
        case sessionRemoved
        /// The session's `PropertiesChanged` with `State=closing`.
        case closing
        /// `PrepareForSleep` with a string where the boolean goes.
        case malformed
        /// The bus driver's `NameOwnerChanged`, saying logind's name has no owner now:
        /// believed, it would make widgetd refuse the real logind.
        case ownerGone

        var description: String { rawValue }
    }

    /// The attacker: python3-dbus, run as an unprivileged uid. It finds the destination's
    /// unique name from its process id (as any client can ask the bus), sends the
    /// forgery `count` times, then calls the bus driver, which answers only after it has
    /// routed every message sent before: once it exits, the forgeries are in widgetd's queue.
    static let attacker = """
        import sys, dbus, dbus.lowlevel
        address, pid, kind, session_id, session_path, count = sys.argv[1:7]
        bus = dbus.bus.BusConnection(address)
        driver = bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus")
        destination = None
        for name in driver.ListNames(dbus_interface="org.freedesktop.DBus"):
            if name.startswith(":") and name != bus.get_unique_name():
                try:
                    if int(driver.GetConnectionUnixProcessID(name, dbus_interface="org.freedesktop.DBus")) == int(pid):
                        destination = name
                except dbus.DBusException:
                    pass
        if destination is None:
            sys.exit("no connection of process " + pid)
        manager = "/org/freedesktop/login1"
        for _ in range(int(count)):
            if kind == "lock":
                m = dbus.lowlevel.SignalMessage(session_path, "org.freedesktop.login1.Session", "Lock")
            elif kind == "sleep":
                m = dbus.lowlevel.SignalMessage(manager, "org.freedesktop.login1.Manager", "PrepareForSleep")
                m.append(True, signature="b")
            elif kind == "sessionRemoved":
                m = dbus.lowlevel.SignalMessage(manager, "org.freedesktop.login1.Manager", "SessionRemoved")
                m.append(session_id, dbus.ObjectPath(session_path), signature="so")
            elif kind == "closing":
                m = dbus.lowlevel.SignalMessage(session_path, "org.freedesktop.DBus.Properties", "PropertiesChanged")
                m.append("org.freedesktop.login1.Session", {"State": dbus.String("closing", variant_level=1)}, [],
                         signature="sa{sv}as")
            elif kind == "ownerGone":
                m = dbus.lowlevel.SignalMessage("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged")
                m.append("org.freedesktop.login1", ":1.1", "", signature="sss")
            else:
                m = dbus.lowlevel.SignalMessage(manager, "org.freedesktop.login1.Manager", "PrepareForSleep")
                m.append("yes", signature="s")
            m.set_destination(destination)
            bus.send_message(m)
        driver.GetId(dbus_interface="org.freedesktop.DBus")
        print(destination)
        """

    /// Sends `forgery` about session `id` to process `pid`'s connection, `count` times, as
    /// `attacker` (nobody by default); returns the destination's unique name.
    @discardableResult
    func forge(
        _ forgery: Forgery, session id: String, to pid: pid_t, count: Int = 1,
        attacker user: (uid: UInt32, gid: UInt32) = (65534, 65534)
    ) throws -> String {
        let script = directory.appendingPathComponent("forge.py")
        if !FileManager.default.fileExists(atPath: script.path) {
            try Self.attacker.write(to: script, atomically: true, encoding: .utf8)
            chmod(script.path, 0o644)
        }
        let result = try ChildProcess.run(
            "/usr/bin/setpriv",
            ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "/usr/bin/python3", script.path,
             address, String(pid), forgery.rawValue, id, session(id).path, String(count)])
        guard result.status == 0 else { throw Failure(description: "forged \(forgery): \(result.error)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: logind restarting

    /// The connection of a logind that lost the name (a process on its way out): still
    /// on the bus, no longer the owner.
    private var retired: OpaquePointer?
    /// A connection that will take the name, not yet its owner (a new logind starting).
    private var successor: OpaquePointer?

    /// A new logind connects, not yet owning the name.
    func connectSuccessor() throws {
        try lock.withLock {
            var bus: OpaquePointer?
            try check(sd_bus_new(&bus), "sd_bus_new")
            successor = bus
            try check(sd_bus_set_address(bus, address), "sd_bus_set_address")
            try check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
            try check(sd_bus_start(bus), "sd_bus_start")
        }
    }

    /// The old logind releases the name and the successor takes it (two
    /// `NameOwnerChanged`); the old connection stays on the bus.
    func handOverToSuccessor() throws {
        try lock.withLock {
            guard let old = bus, let new = successor else { throw Failure(description: "no successor") }
            try check(sd_bus_release_name(old, "org.freedesktop.login1"), "sd_bus_release_name")
            try check(sd_bus_request_name(new, "org.freedesktop.login1", 0), "sd_bus_request_name")
            let handler: sd_bus_message_handler_t = { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                return Unmanaged<FakeLogind>.fromOpaque(userdata).takeUnretainedValue().answer(message)
            }
            try check(
                sd_bus_add_fallback(new, nil, "/org/freedesktop/login1", handler, Unmanaged.passUnretained(self).toOpaque()),
                "sd_bus_add_fallback")
            retired = old
            bus = new
            successor = nil
        }
    }

    /// Which connection sends.
    enum Speaker {
        case owner, retired, successor
    }

    /// Session `id`'s `Lock`, from `speaker`, addressed to `destination` (a unicast).
    func unicastLock(_ id: String, from speaker: Speaker, to destination: String) throws {
        try lock.withLock {
            let connection: OpaquePointer? = switch speaker {
            case .owner: bus
            case .retired: retired
            case .successor: successor
            }
            guard let connection else { throw Failure(description: "no \(speaker) connection") }
            var message: OpaquePointer?
            try check(
                sd_bus_message_new_signal(connection, &message, session(id).path, "org.freedesktop.login1.Session", "Lock"),
                "sd_bus_message_new_signal")
            defer { sd_bus_message_unref(message) }
            try check(sd_bus_message_set_destination(message, destination), "sd_bus_message_set_destination")
            try check(sd_bus_send(connection, message, nil), "sd_bus_send")
            // The driver answers once it routed what this connection sent before.
            var call: OpaquePointer?
            try check(
                sd_bus_message_new_method_call(
                    connection, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"),
                "sd_bus_message_new_method_call")
            var error = sd_bus_error()
            var reply: OpaquePointer?
            defer {
                sd_bus_error_free(&error)
                sd_bus_message_unref(reply)
                sd_bus_message_unref(call)
            }
            try check(sd_bus_call(connection, call, 0, &error, &reply), "GetId")
        }
    }

    /// A `Lock` signal for session `id` from a bus client that is not logind: anyone on
    /// the system bus can send one.
    func forgeLock(_ id: String) throws {
        let result = try ChildProcess.run(
            "/usr/bin/dbus-send", ["--bus=\(address)", "--type=signal", session(id).path, "org.freedesktop.login1.Session.Lock"])
        guard result.status == 0 else { throw Failure(description: "dbus-send: \(result.error)") }
    }
}
