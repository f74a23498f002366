import Foundation
import Glibc
import Testing
import TestSupport
@testable import WidgetdPOSIX

/// `/.flatpak-info` as widgetd reads it: `[Application] name=`, and nothing it could misread.
@Suite struct FlatpakInfoTests {
    static let files: [(text: String, appID: String?)] = [
        ("[Application]\nname=com.example.Weather\nruntime=runtime/org.gnome.Platform/x86_64/45\n", "com.example.Weather"),
        ("# written by flatpak\n[Application]\n  name = com.example.Weather  \r\n\n[Instance]\ninstance-id=1\n", "com.example.Weather"),
        ("[Instance]\nname=com.example.Other\n[Application]\nname=com.example.Weather\n", "com.example.Weather"),
        // The name of another group, a localised key: not the application's name.
        ("[Runtime]\nname=org.gnome.Platform\n", nil),
        ("[Application]\nname[de]=com.example.Wetter\n", nil),
        // Twice, in one group or two: refused, not guessed at (GLib would take the last).
        ("[Application]\nname=com.example.Weather\nname=com.example.Mail\n", nil),
        ("[Application]\nname=com.example.Weather\n[Application]\nname=com.example.Mail\n", nil),
        // Not valid application ids.
        ("[Application]\nname=\n", nil),
        ("[Application]\nname=com.example\n", nil),
        ("[Application]\nname=com.example.9lives\n", nil),
        ("[Application]\nname=com.example..Weather\n", nil),
        ("[Application]\nname=com.example.Weather/../x\n", nil),
        ("[Application\nname=com.example.Weather\n", nil),
        ("", nil),
    ]

    @Test(arguments: files.indices)
    func theApplicationIDIsTheOneNameOfTheApplicationGroup(index: Int) {
        let (text, appID) = Self.files[index]
        #expect(FlatpakInfo.applicationID(in: Array(text.utf8)) == appID)
    }

    @Test func anApplicationIDIsValidByFlatpaksRule() {
        #expect(FlatpakInfo.isValidApplicationID("org.gnome.Maps"))
        #expect(FlatpakInfo.isValidApplicationID("com.example.my-app_2"))
        #expect(!FlatpakInfo.isValidApplicationID("org.gnome"))
        #expect(!FlatpakInfo.isValidApplicationID("org.gnome.Maps."))
        #expect(!FlatpakInfo.isValidApplicationID("org.2gnome.Maps"))
        #expect(!FlatpakInfo.isValidApplicationID("org.gnome.Mäps"))
        #expect(!FlatpakInfo.isValidApplicationID("a.b." + String(repeating: "c", count: 252)))
    }

    @Test func aPIDFDsFdinfoGivesItsPID() {
        #expect(PeerSandbox.parsePIDLine(Array("pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t3\nPid:\t4242\nNSpid:\t4242\n".utf8)) == 4242)
        #expect(PeerSandbox.parsePIDLine(Array("Pid:\t-1\n".utf8)) == -1)
        #expect(PeerSandbox.parsePIDLine(Array("pos:\t0\n".utf8)) == nil)
    }
}

/// A peer's sandbox, told from a real bubblewrap sandbox of Flatpak's shape (the test
/// runs as root, so bwrap needs no user namespace).
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap") && getuid() == 0, "needs bwrap and root"))
struct PeerSandboxTests {
    private let directory = NSTemporaryDirectory() + "widgetd-sandbox-\(UUID().uuidString)"

    /// A listener in `directory`, and a `/.flatpak-info` naming `com.example.Weather`.
    private func setUp() throws -> (listener: FileDescriptor, path: String, info: String) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let info = directory + "/flatpak-info"
        try "[Application]\nname=com.example.Weather\n".write(toFile: info, atomically: true, encoding: .utf8)
        let path = directory + "/s.sock"
        return (try UnixListener.listen(at: path).fd, path, info)
    }

    /// Starts python in a sandbox as Flatpak makes one: it connects to `path`, then runs
    /// `then` (Python; `s` is the socket).
    private func sandboxedClient(path: String, info: String, then: String) throws -> ChildProcess {
        let script = "import socket,sys,time\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\n" + then
        return try ChildProcess("/usr/bin/bwrap", [
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--ro-bind", info, "/.flatpak-info", "--proc", "/proc", "--dev", "/dev",
            "--bind", directory, directory, "--die-with-parent", "/usr/bin/python3", "-c", script, path,
        ])
    }

    /// Accepts the next connection, waiting for it (the listener is non-blocking).
    private func accept(_ listener: FileDescriptor) throws -> FileDescriptor {
        for _ in 0..<1000 {
            if let fd = try Syscall.accept(listener) { return fd }
            var poller = pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 10)
        }
        throw SystemError("accept", errno: .wouldBlock)
    }

    @Test func aPeerInAFlatpakSandboxIsToldByItsApplicationID() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (listener, path, info) = try setUp()
        defer { Syscall.close(listener) }
        let client = try sandboxedClient(path: path, info: info, then: "s.recv(1)\n")
        let fd = try accept(listener)
        defer { Syscall.close(fd) }
        let peer = try PeerCredentials.of(socket: fd)
        #expect(peer.sandbox == .flatpak(appID: "com.example.Weather"))
        client.signal(SIGKILL)
    }

    @Test func aPeerOutsideAnySandboxIsUnconfined() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(!FileManager.default.fileExists(atPath: "/.flatpak-info"))
        #expect(try PeerCredentials.of(socket: FileDescriptor(rawValue: fds[0])).sandbox == .unconfined)
    }

    @Test func thisKernelHandsOutPeerPIDFDs() {
        // Linux 6.5 and later (the tests need it); the daemon warns at start where it is missing.
        #expect(PeerSandbox.peerPIDFDUnavailable() == nil)
    }

    @Test func withoutSOPeerPIDFDAPeersSandboxIsUnknownNeverUnconfined() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        // A kernel before 6.5: getsockopt(SO_PEERPIDFD) fails with ENOPROTOOPT.
        let sandbox = PeerSandbox.of(socket: FileDescriptor(rawValue: fds[0])) { (_) throws(SystemError) in
            throw SystemError("getsockopt(SO_PEERPIDFD)", code: ENOPROTOOPT)
        }
        #expect(sandbox == .unknown(.noPeerPIDFD(Errno(rawValue: ENOPROTOOPT))))
    }

    /// An app whose process connected and exited, but is not reaped yet (a zombie keeps
    /// its pid, and its pidfd still names it): a zombie's root does not open, so its
    /// `/.flatpak-info` cannot be looked for; that is unknown, never unconfined.
    @Test func aZombieThatConnectedIsUnknownNotUnconfined() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (listener, path, info) = try setUp()
        defer { Syscall.close(listener) }
        // The child connects and exits; the parent neither waits for it nor exits.
        let client = try sandboxedClient(
            path: path, info: info,
            then: "import os\ns.close()\nif os.fork() == 0:\n    c=socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); c.sendall(b'x'); os._exit(0)\ntime.sleep(60)\n")
        defer { client.signal(SIGKILL) }
        // The first connection is the parent's, closed at once; the second the child's.
        Syscall.close(try accept(listener))
        let fd = try accept(listener)
        defer { Syscall.close(fd) }
        let pid = try PeerCredentials.of(socket: fd).pid
        // Wait until the child is a zombie (its state in /proc/PID/stat is Z).
        var isZombie = false
        for _ in 0..<1000 where !isZombie {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            isZombie = stat.split(separator: ")").last?.split(separator: " ").first == "Z"
            if !isZombie { usleep(10_000) }
        }
        #expect(isZombie)
        #expect(try PeerCredentials.of(socket: fd).sandbox == .unknown(.peerGone))
    }

    /// The attack a pid alone allows: an app connects and exits, and its pid goes to a
    /// process outside any sandbox before the daemon looks. `/proc/PID` then shows that
    /// process (unconfined); the pidfd the kernel took at connect still names the app,
    /// which is gone: unknown, never unconfined.
    @Test func aRecycledPIDCannotStandInForTheAppThatConnected() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (listener, path, info) = try setUp()
        defer { Syscall.close(listener) }
        // Connects, says which pid it is, and exits.
        let client = try sandboxedClient(path: path, info: info, then: "s.sendall(b'x')\n")
        client.waitUntilExit()
        #expect(client.terminationStatus == 0)
        let fd = try accept(listener)
        defer { Syscall.close(fd) }
        let pid = try PeerCredentials.of(socket: fd).pid
        // Hand the app's pid to an unsandboxed process: the kernel gives the pid after
        // ns_last_pid to the next process. Another process of the machine may take it
        // first; then try again (each try waits for nothing).
        var recycled: ChildProcess?
        for _ in 0..<50 where recycled == nil {
            try String(pid - 1).write(toFile: "/proc/sys/kernel/ns_last_pid", atomically: false, encoding: .utf8)
            let candidate = try ChildProcess("/bin/sleep", ["60"])
            if candidate.processIdentifier == pid { recycled = candidate } else { candidate.signal(SIGKILL) }
        }
        let stranger = try #require(recycled, "pid \(pid) could not be handed to another process")
        defer { stranger.signal(SIGKILL) }
        // What a reader of /proc/PID would see: a process outside any sandbox.
        #expect(FileManager.default.fileExists(atPath: "/proc/\(pid)/root/usr"))
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(pid)/root/.flatpak-info"))
        let peer = try PeerCredentials.of(socket: fd)
        #expect(peer.pid == pid)
        guard case .unknown = peer.sandbox else {
            Issue.record("a recycled pid was taken for the app: \(peer.sandbox)")
            return
        }
    }
}

/// A process of the daemon's user whose root it may not open (not dumpable) is in no
/// sandbox when it runs without `no_new_privs`, which bubblewrap always sets: PAM's
/// helper, which took the user's credentials from root, is the owner (scripts/test-pam).
@Suite struct NonDumpablePeerTests {
    @Test(arguments: [
        ("Name:\tx\nNoNewPrivs:\t0\nSeccomp:\t0\n", false as Bool?),
        ("Name:\tx\nNoNewPrivs:\t1\nSeccomp:\t2\n", true),
        ("Name:\tx\nSeccomp:\t0\n", nil),
        ("NoNewPrivs:\tmaybe\n", nil),
    ])
    func noNewPrivsIsReadFromStatus(status: String, expected: Bool?) {
        #expect(PeerSandbox.parseNoNewPrivileges(Array(status.utf8)) == expected)
    }

    @Test func aProcessesFlagIsReadThroughItsProcDirectory() throws {
        let directory = try Syscall.openDirectoryPath("/proc/self")
        defer { Syscall.close(directory) }
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let flag: Bool = try #require(PeerSandbox.hasNoNewPrivileges(directory) as Bool?)
        #expect(status.contains("NoNewPrivs:\t\(flag ? 1 : 0)\n"))
    }
}
