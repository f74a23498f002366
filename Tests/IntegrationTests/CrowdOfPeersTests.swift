import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 13, defect 6: a crowd of peers of one uid cannot hold every connection, and
/// unfinished messages cannot raise the daemon's memory without bound.
@Suite(.enabled(if: getuid() == 0, "needs root to act as other users"))
struct CrowdOfPeersTests {
    /// A crowd of `count` connections as `uid`, each asking GetStatus; they stay open
    /// until ``release()``. `accepted` is how many the daemon answered.
    final class Crowd {
        let process: ChildProcess
        let input = try! PipePair()
        let accepted: Int

        init(uid: Int, count: Int, socket: String) throws {
            let script = """
                import json, socket, sys
                held, accepted = [], 0
                for _ in range(int(sys.argv[2])):
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.settimeout(10)
                    s.connect(sys.argv[1])
                    try:
                        s.sendall(json.dumps({"method": "io.widgetd.Device.GetStatus"}).encode() + b"\\0")
                        if s.recv(65536): accepted += 1
                    except OSError:
                        pass
                    held.append(s)
                print(accepted, flush=True)
                sys.stdin.read()
                """
            let output = try PipePair()
            process = try ChildProcess("/usr/bin/setpriv", [
                "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "-c", script, socket, String(count),
            ], standardInput: input.read, standardOutput: output.write)
            output.closeWrite()
            // The first line: how many the daemon answered (the child keeps its sockets open
            // and waits on its standard input).
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while byte != UInt8(ascii: "\n"), Glibc.read(output.read, &byte, 1) == 1 { line.append(byte) }
            accepted = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }

        func release() {
            input.closeWrite()
            process.waitUntilExit()
        }

        deinit { release() }
    }

    @Test func aCrowdOfOneUIDCannotKeepOtherUIDsOrTheOwnerOut() throws {
        let daemon = try DaemonProcess(daemon: ["MaxConnections=20", "MaxConnectionsPerUser=8", "ReservedConnections=4"])
        try daemon.start()
        // Every uid may connect: the socket's mode is not what is tested here.
        chmod(daemon.socketPath, 0o666)
        let first = try Crowd(uid: 65534, count: 30, socket: daemon.socketPath)
        defer { first.release() }
        #expect(first.accepted == 8)
        let second = try Crowd(uid: 65533, count: 30, socket: daemon.socketPath)
        defer { second.release() }
        #expect(second.accepted == 8)
        // 16 of 20 are taken: the last 4 are the owner's.
        let third = try Crowd(uid: 65532, count: 1, socket: daemon.socketPath)
        defer { third.release() }
        #expect(third.accepted == 0)
        let owner = try daemon.client()
        try owner.ok("io.widgetd.Device.Lock")
        #expect(daemon.log.contains("connection_refused"))
    }

    /// Resident memory of a process, in bytes.
    static func residentBytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    @Test func unterminatedLargeMessagesCannotRaiseTheMemoryPastTheBound() throws {
        let daemon = try DaemonProcess(daemon: ["MaxPendingInputBytes=8M"])
        try daemon.start()
        let pid = try #require(daemon.process?.processIdentifier)
        try daemon.client().ok("io.widgetd.Device.GetStatus")
        let before = try Self.residentBytes(of: pid)
        // 60 unterminated 1 MB messages: 60 MB, against a bound of 8 MiB (+ 64 KiB each).
        let message = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
        var sockets: [HostileClientTests.RawSocket] = []
        for _ in 0..<60 {
            guard let socket = HostileClientTests.RawSocket(path: daemon.socketPath) else { continue }
            socket.send(message)
            sockets.append(socket)
        }
        // One round trip: the daemon has read what it was sent.
        try daemon.client().ok("io.widgetd.Device.GetStatus")
        let after = try Self.residentBytes(of: pid)
        let growth = after - before
        #expect(growth < 24 << 20, "RSS grew by \(growth >> 20) MiB")
        #expect(daemon.log.contains("pending_input_exceeded"))
    }
}
