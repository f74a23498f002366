import Foundation
import Glibc

/// A server the benchmark starts and stops: widgetd, redis-server or the echo server.
final class ServerProcess {
    let process: Process
    let socketPath: String

    /// Starts `executable` with `arguments`; its output goes to `log`.
    init(executable: String, arguments: [String], socketPath: String, log: String, environment: [String: String] = [:]) throws {
        self.socketPath = socketPath
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "JOURNAL_STREAM", "CREDENTIALS_DIRECTORY"] { env[name] = nil }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Waits until the socket accepts a connection (for servers that do not speak
    /// sd_notify), giving up after `timeout` seconds or when the process exits.
    func waitUntilConnectable(framing: SocketClient.Framing, timeout: Double = 20) throws {
        let deadline = Clock.nanoseconds() + UInt64(timeout * 1e9)
        while Clock.nanoseconds() < deadline {
            if (try? SocketClient(path: socketPath, framing: framing)) != nil { return }
            guard process.isRunning else { throw BenchError("\(process.executableURL!.path) exited before listening") }
            usleep(10_000)
        }
        throw BenchError("\(socketPath) not connectable within \(timeout) s")
    }

    /// Stops the process with SIGTERM and waits for it.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }

    /// Kills the process with SIGKILL (a crash: nothing of an orderly stop runs) and waits for it.
    func crash() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// CPU time the process has used, user and system, all threads (seconds; the
    /// kernel counts it in clock ticks, 10 ms here).
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name (which may hold spaces): state is field 3,
        // utime and stime are 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory in KiB (VmRSS), or nil if the process is gone.
    var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }
}

/// The socket systemd's `sd_notify` writes to: widgetd's readiness is awaited the way
/// systemd awaits it, on `READY=1`.
final class NotifySocket {
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw BenchError("bind \(path): errno \(errno)") }
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Waits for a datagram holding `line`, giving up after `timeout` seconds or when `alive` turns false.
    func waitFor(_ line: String, timeout: Double, alive: () -> Bool) throws {
        let deadline = Clock.nanoseconds() + UInt64(timeout * 1e9)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Clock.nanoseconds() < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0, String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").contains(Substring(line)) { return }
            if n <= 0, !alive() { throw BenchError("widgetd exited before \(line)") }
        }
        throw BenchError("no \(line) within \(timeout) s")
    }
}
