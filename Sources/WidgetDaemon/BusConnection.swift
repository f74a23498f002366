import CSystemd
import FoundationEssentials
import Glibc
import WidgetdPOSIX

/// One D-Bus connection through sd-bus, driven by the event loop: the bus's descriptor
/// in the loop's epoll, its timeout as a loop timer, `sd_bus_process` when either
/// fires. No thread and no polling; every call is asynchronous, so the loop never waits
/// for the bus. ``LogindBus`` (the system bus) and ``SystemdUserManager`` (the user's
/// bus) speak their services' vocabulary over it.
///
/// Threading: the loop's thread only.
final class BusConnection {
    /// A method call answered with an error, e.g. `org.freedesktop.DBus.Error.ServiceUnknown`
    /// where the service does not run.
    struct ErrorReply: Error, CustomStringConvertible {
        /// The D-Bus error name.
        let name: String
        /// The call.
        let method: String
        var description: String { "\(method): \(name)" }
    }

    /// A message that does not have the arguments its service documents.
    struct MalformedMessage: Error, CustomStringConvertible {
        /// The signal or reply.
        let member: String
        /// The sd-bus errno.
        let code: Int32
        var description: String { "\(member): \(String(cString: strerror(code)))" }
    }

    /// Which bus to connect to.
    enum Bus {
        /// `DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`.
        case system
        /// `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`: the user's bus.
        case user
        /// The user's systemd manager itself, on its private socket
        /// (`$XDG_RUNTIME_DIR/systemd/private`), as `systemctl --user` reaches it first:
        /// there whether or not the user has a bus.
        case userManager
    }

    private let loop: EventLoop
    private var bus: OpaquePointer?
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
    /// A call failed, a message did not parse, or the connection was lost.
    private let failed: (any Error) -> Void

    /// Whether the connection is still open (a lost one is closed and reported to `failed`).
    var isOpen: Bool { bus != nil }

    /// Connects to `bus` and starts serving it on `loop`.
    ///
    /// Throws when there is no bus to connect to (a container without D-Bus). The
    /// connection's handshake goes on asynchronously; a failure there arrives at `failed`.
    init(_ which: Bus, loop: EventLoop, failed: @escaping (any Error) -> Void) throws(SystemError) {
        self.loop = loop
        self.failed = failed
        self.bus = try Self.open(which)
        guard let bus else { throw SystemError("sd_bus_open", code: ENOTCONN) }
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

    /// A new connection to `which`, its handshake begun.
    private static func open(_ which: Bus) throws(SystemError) -> OpaquePointer {
        var bus: OpaquePointer?
        switch which {
        case .system:
            let opened = sd_bus_open_system(&bus)
            guard opened >= 0, let bus else { throw SystemError("sd_bus_open_system", code: -opened) }
            return bus
        case .user:
            let opened = sd_bus_open_user(&bus)
            guard opened >= 0, let bus else { throw SystemError("sd_bus_open_user", code: -opened) }
            return bus
        case .userManager:
            guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") else {
                throw SystemError("XDG_RUNTIME_DIR", code: ENOENT)
            }
            var result = sd_bus_new(&bus)
            guard result >= 0, let bus else { throw SystemError("sd_bus_new", code: -result) }
            result = "unix:path=\(runtime)/systemd/private".withCString { sd_bus_set_address(bus, $0) }
            if result >= 0 { result = sd_bus_start(bus) }
            guard result >= 0 else {
                _ = sd_bus_close_unref(bus)
                throw SystemError("sd_bus_start(systemd/private)", code: -result)
            }
            return bus
        }
    }

    /// Drops every subscription and the connection; no callback runs after it.
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

    func addMatch(_ rule: String, _ body: @escaping (BusMessage) -> Void) throws(SystemError) {
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

    /// Calls a method of `destination` with string arguments; `parse` reads the reply
    /// on the loop, and an error reply goes to `failed`.
    func call(
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
    func afterCall() {
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
