import Foundation
import Glibc
import Testing
@testable import WidgetDaemon
import WidgetdPOSIX

/// These tests change NOTIFY_SOCKET, so they do not run in parallel with each other.
@Suite(.serialized) struct SystemdTests {
    @Test func withoutSystemdThereAreNoSocketsAndNoWatchdog() throws {
        unsetenv("LISTEN_FDS")
        unsetenv("WATCHDOG_USEC")
        #expect(try Systemd.listenFileDescriptors().isEmpty)
        #expect(Systemd.watchdogInterval() == nil)
    }

    @Test func notifyWithoutANotifySocketReportsThatNobodyListens() {
        unsetenv("NOTIFY_SOCKET")
        #expect(!Systemd.notify(Systemd.Notification.ready))
    }

    /// A datagram socket standing in for systemd's notify socket; NOTIFY_SOCKET points to it.
    private func withNotifySocket(_ body: (_ receive: () -> String?) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "widgetd-notify-\(UUID().uuidString).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd); unlink(path); unsetenv("NOTIFY_SOCKET") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        setenv("NOTIFY_SOCKET", path, 1)
        try body {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
        }
    }

    @Test func notifySendsTheStateToTheNotifySocket() throws {
        try withNotifySocket { receive in
            #expect(Systemd.notify(Systemd.Notification.ready + "\n" + Systemd.Notification.status("serving")))
            #expect(receive() == "READY=1\nSTATUS=serving")
        }
    }

    @Test func watchdogPingsStartAtOnceWhenAWatchdogIsEnabled() throws {
        try withNotifySocket { receive in
            setenv("WATCHDOG_USEC", "30000000", 1)
            setenv("WATCHDOG_PID", String(getpid()), 1)
            defer { unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID") }
            let loop = try EventLoop()
            #expect(Systemd.startWatchdogPings(on: loop) == 30)
            #expect(receive() == "WATCHDOG=1")
        }
    }

    @Test func readsTheWatchdogIntervalForThisProcess() {
        setenv("WATCHDOG_USEC", "30000000", 1)
        setenv("WATCHDOG_PID", String(getpid()), 1)
        defer { unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID") }
        #expect(Systemd.watchdogInterval() == 30)
    }
}
