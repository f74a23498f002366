import Foundation
import Glibc
import TestSupport

/// A real `widgetd` on a temporary configuration, state directory and socket.
///
/// Readiness is awaited the way systemd awaits it: the test owns a `NOTIFY_SOCKET` and
/// waits for `READY=1`, so no test guesses how long a start takes.
final class DaemonProcess {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The providers every test daemon registers, one per class, all owned by root
    /// (uid 0) so the tests (root in CI) can act as each of them.
    static let exampleProviders: [(id: String, protection: String)] = [
        ("com.example.health", "complete"),
        ("com.example.mail", "completeUnlessOpen"),
        ("com.example.weather", "completeUntilFirstUserAuthentication"),
        ("com.example.clock", "none"),
    ]

    let root: URL
    var configFile: URL { root.appendingPathComponent("etc/widgetd.conf") }
    var stateDirectory: URL { root.appendingPathComponent("state") }
    var socketPath: String { root.appendingPathComponent("run/widgetd.sock").path }
    var logFile: URL { root.appendingPathComponent("widgetd.log") }
    private(set) var process: ChildProcess?
    /// Whether the running daemon was started under libfaketime (``FakeClock``).
    private var fakesClock = false
    /// The NOTIFY_SOCKET of the running daemon, kept open to hear reloads and stops.
    private var notify: NotifySocket?

    /// The built `widgetd`, beside the test bundle (`swift build` puts both in one folder).
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["WIDGETD_BIN"] { return URL(fileURLWithPath: path) }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent == "MacOS" || dir.path.hasSuffix(".xctest") { dir.deleteLastPathComponent() }
        return dir.appendingPathComponent("widgetd")
    }

    /// Writes a configuration: `daemon` lines go in `[Daemon]`, `access` in `[Access]`,
    /// `session` in `[Session]`.
    init(
        daemon: [String] = [], access: [String] = [], session: [String] = [],
        providers: [(id: String, protection: String)] = exampleProviders
    ) throws {
        root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("widgetd-test-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("etc/providers.d"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent("run"), withIntermediateDirectories: true)
        let config = (["[Daemon]", "PasscodeKDF=minimum"] + daemon + ["", "[Access]"] + access + ["", "[Session]"] + session)
            .joined(separator: "\n") + "\n"
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        for provider in providers {
            let text = "[Provider]\nId=\(provider.id)\nUser=0\nDataProtection=\(provider.protection)\n"
            try text.write(
                to: root.appendingPathComponent("etc/providers.d/\(provider.id).conf"), atomically: true, encoding: .utf8)
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// Starts the daemon and returns once it sent `READY=1`.
    ///
    /// `user` runs it as another uid/gid through `setpriv` (the tests must be root);
    /// `workingDirectory` is where a core file would land; `launcher` is a program and
    /// arguments that exec the daemon (e.g. `/usr/bin/env LD_PRELOAD=…`: a preload set
    /// through `Process` itself loses the daemon's arguments under libfaketime).
    /// `defaultPaths` passes no path options, so the daemon finds its own defaults.
    func start(
        extraArguments: [String] = [], environment: [String: String] = [:], user: (uid: UInt32, gid: UInt32)? = nil,
        workingDirectory: URL? = nil, launcher: [String] = [], defaultPaths: Bool = false
    ) throws {
        let notifyPath = root.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))").path
        let notify = try NotifySocket(path: notifyPath)
        self.notify = notify
        let arguments = (defaultPaths ? [] : [
            "--config", configFile.path, "--state-directory", stateDirectory.path, "--socket", socketPath,
        ]) + extraArguments
        let command: [String]
        if let user {
            chmod(notifyPath, 0o777)
            chmod(root.path, 0o755)
            try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
            for directory in [stateDirectory, root.appendingPathComponent("run")] {
                chown(directory.path, user.uid, user.gid)
            }
            // The configuration stays root's, readable by the daemon's user.
            let etc = root.appendingPathComponent("etc")
            for case let path as String in FileManager.default.enumerator(atPath: etc.path) ?? .init() {
                chmod(etc.appendingPathComponent(path).path, path.hasSuffix(".conf") ? 0o644 : 0o755)
            }
            chmod(etc.path, 0o755)
            command = ["/usr/bin/setpriv", "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", Self.binary.path]
                + arguments
        } else if let program = launcher.first {
            command = [program] + Array(launcher.dropFirst()) + [Self.binary.path] + arguments
        } else {
            command = [Self.binary.path] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notifyPath
        env.removeValue(forKey: "JOURNAL_STREAM")
        env.removeValue(forKey: "LISTEN_FDS")
        env.removeValue(forKey: "CREDENTIALS_DIRECTORY")
        for (key, value) in environment { env[key] = value }
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let log = open(logFile.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard log >= 0 else { throw Failure(description: "cannot open \(logFile.path): errno \(errno)") }
        defer { close(log) }
        let process = try ChildProcess(
            command[0], Array(command.dropFirst()), environment: env, directory: workingDirectory?.path,
            standardOutput: log, standardError: log)
        self.process = process
        fakesClock = FakeClock.isUsed(by: launcher)
        try waitForNotification("READY=1")
    }

    /// Waits until the daemon sends `line` (e.g. `READY=1`, `RELOADING=1`, `STOPPING=1`) to
    /// NOTIFY_SOCKET; returns the whole notification that carried it.
    @discardableResult
    func waitForNotification(_ line: String, timeout: Int = 120) throws -> String {
        guard let notify else { throw Failure(description: "not started") }
        return try notify.waitFor(line, timeout: timeout) { [weak self] in self?.process?.isRunning ?? false }
    }

    /// Sends a signal to the daemon.
    func signal(_ signal: Int32) {
        if let process, process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Stops the daemon with SIGTERM and returns its exit status.
    @discardableResult
    func stop() -> Int32? {
        guard let process else { return nil }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        exited(process)
        return process.terminationStatus
    }

    /// Kills the daemon with SIGKILL (a crash).
    func kill9() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        exited(process)
    }

    /// Forgets the daemon that exited, and what it left behind.
    private func exited(_ process: ChildProcess) {
        if fakesClock { FakeClock.removeSharedMemory(of: process.processIdentifier) }
        self.process = nil
        notify?.close()
        notify = nil
    }

    /// What the daemon logged so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// A new client connection.
    func client() throws -> VarlinkTestClient { try VarlinkTestClient(path: socketPath) }
}

/// The receiving end of `NOTIFY_SOCKET`: a Unix datagram socket.
struct NotifySocket {
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw DaemonProcess.Failure(description: "bind notify socket: errno \(errno)") }
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func close() {
        Glibc.close(fd)
        unlink(path)
    }

    /// Waits for a datagram containing `line` and returns it, giving up when `alive`
    /// turns false.
    func waitFor(_ line: String, timeout: Int, alive: () -> Bool) throws -> String {
        for _ in 0..<timeout {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            let text = n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : ""
            if text.split(separator: "\n").contains(Substring(line)) {
                return text
            }
            if n <= 0, !alive() { throw DaemonProcess.Failure(description: "widgetd exited before \(line)") }
        }
        throw DaemonProcess.Failure(description: "no \(line) within \(timeout) s")
    }
}
