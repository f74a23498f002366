import Foundation
import Testing

/// `widgetd --help`, `--version` and usage errors, from the real binary.
@Suite struct DaemonCommandLineTests {
    private func run(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(DaemonProcess.binary, arguments)
    }

    @Test func helpGoesToStandardOutputAndExitsZero() throws {
        let result = try run(["--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("--state-directory"))
        #expect(result.error.isEmpty)
    }

    @Test func versionNamesTheProgram() throws {
        let result = try run(["--version"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("widgetd "))
    }

    @Test func anUnknownOptionIsAUsageError() throws {
        let result = try run(["--frobnicate"])
        #expect(result.status == 64)
        #expect(result.error.contains("--frobnicate"))
        #expect(result.output.isEmpty)
    }

    /// `--check-config`, like `sshd -t`: every problem on standard error, exit 1 on an
    /// error, 0 with warnings only; nothing is started or created.
    @Test func checkConfigPrintsEveryProblemAndExitsNonZeroOnAnError() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=soon", "Colour=blue", "MaxConnections=0"])
        let bad = try run(["--check-config", "--config", daemon.configFile.path])
        #expect(bad.status == 1)
        #expect(bad.error.contains("widgetd.conf:3: error: invalid value 'soon' for ClassAGraceSec="))
        #expect(bad.error.contains("widgetd.conf:4: warning: unknown key 'Colour'"))
        #expect(bad.error.contains("widgetd.conf:5: error: invalid value '0' for MaxConnections="))
        #expect(bad.output.contains("2 error(s), 1 warning(s)"))
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory.path))

        let warned = try DaemonProcess(daemon: ["Colour=blue"])
        let result = try run(["--check-config", "--config", warned.configFile.path])
        #expect(result.status == 0)
        #expect(result.output.contains("0 error(s), 1 warning(s)"))
    }

    /// The user a user's daemon runs as: `nobody` when the tests run as root (through
    /// `setpriv`), else the tests' own user, which is already not root.
    static let user: (uid: UInt32, gid: UInt32) = getuid() == 0 ? (65534, 65534) : (getuid(), getgid())

    /// A user whose home has no `~/.local/state` yet starts widgetd on its defaults:
    /// the missing XDG base directories are made with mode 0700, as the XDG
    /// specification asks.
    @Test func aFreshAccountStartsOnTheXDGDefaults() throws {
        let daemon = try DaemonProcess()
        let home = daemon.root.appendingPathComponent("home")
        let runtime = daemon.root.appendingPathComponent("runtime")
        for directory in [home, runtime] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            chown(directory.path, Self.user.uid, Self.user.gid)
            chmod(directory.path, 0o700)
        }
        try daemon.start(
            environment: ["HOME": home.path, "XDG_RUNTIME_DIR": runtime.path, "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": ""],
            user: getuid() == 0 ? Self.user : nil, defaultPaths: true)
        defer { daemon.stop() }
        let client = try VarlinkTestClient(path: runtime.path + "/widgetd/widgetd.sock")
        try client.ok("io.widgetd.Device.GetStatus")
        for path in [".local", ".local/state"] {
            var status = stat()
            #expect(stat(home.path + "/" + path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o700, "\(path) is not 0700")
            #expect(status.st_uid == Self.user.uid)
        }
        #expect(FileManager.default.fileExists(atPath: home.path + "/.local/state/widgetd/keybag"))
    }

    /// Under `su`, ssh without logind or a container there is no `XDG_RUNTIME_DIR`: a
    /// user's widgetd says so and names `--socket`, instead of failing to make a directory
    /// in `/run/user/UID`, and creates nothing in `~/.local/state` before it stops.
    @Test func withoutXDGRuntimeDirAUsersDaemonSaysSoAndCreatesNothing() throws {
        let daemon = try DaemonProcess()
        let home = daemon.root.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        chown(home.path, Self.user.uid, Self.user.gid)
        chmod(home.path, 0o700)
        chmod(daemon.root.path, 0o755)
        var environment = ProcessInfo.processInfo.environment
        for name in ["XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "LISTEN_FDS", "NOTIFY_SOCKET", "JOURNAL_STREAM"] {
            environment[name] = nil
        }
        environment["HOME"] = home.path
        let result = getuid() == 0
            ? try ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=65534", "--regid=65534", "--clear-groups", DaemonProcess.binary.path], environment: environment)
            : try ProcessRunner.run(DaemonProcess.binary, [], environment: environment)
        #expect(result.status == 1)
        let said = result.output + result.error
        #expect(said.contains("XDG_RUNTIME_DIR is not set"), "\(said)")
        #expect(said.contains("--socket"))
        #expect(!said.contains("mkdir"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: home.path)) == [], "nothing made in the home")
    }

    /// A second widgetd on a running one's state directory stops at once with a clear
    /// error, and the first one serves on, its journal untouched.
    @Test func aSecondDaemonOnTheSameStateDirectoryIsRefused() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/first"))
        let second = try run([
            "--config", daemon.configFile.path, "--state-directory", daemon.stateDirectory.path,
            "--socket", daemon.socketPath + ".second",
        ])
        #expect(second.status != 0)
        #expect(second.error.contains("in use by another widgetd process"), "\(second.error)")
        let read = try daemon.client().ok("io.widgetd.Provider.GetTimeline", ["widget": "com.example.weather/first"])
        #expect(read["generation"] as? Int == 1)
    }
}

/// Issue 13, defect 7: a second widgetd with its own state directory but the running
/// one's `--socket` must not take the socket over.
@Suite struct SocketOwnershipTests {
    @Test func aSecondDaemonOnALiveSocketIsRefusedAndLeavesItInPlace() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        var before = stat()
        try #require(lstat(daemon.socketPath, &before) == 0)
        let other = try DaemonProcess()
        // Bounded: a daemon that took the socket over would serve on; its stop shows what its exit removes.
        let second = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/timeout"), [
            "10", DaemonProcess.binary.path, "--config", other.configFile.path,
            "--state-directory", other.stateDirectory.path, "--socket", daemon.socketPath,
        ])
        #expect(second.status != 0)
        #expect(second.error.contains(daemon.socketPath), "\(second.error)")
        #expect(second.error.contains("already answers"), "\(second.error)")
        // The first daemon's socket is the same file, and it still answers.
        var after = stat()
        #expect(lstat(daemon.socketPath, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_dev == before.st_dev)
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] != nil)
    }

    @Test func aStaleSocketIsReplaced() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // SIGKILL leaves the socket file behind with nobody listening.
        daemon.kill9()
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath))
        try daemon.start()
        defer { daemon.stop() }
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] != nil)
    }

    @Test func aDaemonDoesNotRemoveASocketThatIsNoLongerItsOwnAtExit() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // Someone else's socket now sits at the path (e.g. a newer instance's).
        unlink(daemon.socketPath)
        let replacement = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(replacement) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in daemon.socketPath.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(replacement, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        #expect(daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath))
    }
}
