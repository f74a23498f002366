import Foundation
import Glibc
import Testing
import TestSupport

/// systemd integration: socket activation, readiness, SIGTERM and SIGHUP.
@Suite struct SystemdEndToEndTests {
    @Test func sigtermStopsCleanlyAndSaysStopping() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.GetStatus")
        daemon.signal(SIGTERM)
        try daemon.waitForNotification("STOPPING=1")
        #expect(daemon.stop() == 0)
    }

    @Test func sighupReloadsProvidersWithoutTouchingReleasedKeys() throws {
        let daemon = try DaemonProcess(providers: [("com.example.weather", "completeUntilFirstUserAuthentication")])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Device.Lock")
        try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(try client.call("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.news/top")).error
            == "io.widgetd.ProviderNotRegistered")
        try "[Provider]\nId=com.example.news\nUser=0\nDataProtection=complete\n".write(
            to: daemon.root.appendingPathComponent("etc/providers.d/com.example.news.conf"), atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForNotification("READY=1")
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.news/top"))
        #expect(try client.ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": "com.example.news/top"]).error == nil)
    }

    /// A SIGHUP with a broken file keeps the running configuration, and the status
    /// systemd shows says the reload failed instead of reporting it as done.
    @Test func aFailedReloadSaysSoToSystemd() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try "[Daemon]\nClassAGraceSec=soon\n".write(to: daemon.configFile, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let notification = try daemon.waitForNotification("READY=1")
        #expect(notification.contains("STATUS=reload failed"))
        #expect(daemon.log.contains("reload_failed"))
        try daemon.client().ok("io.widgetd.Device.GetStatus")
    }

    /// One bad provider file disables its own providers only: the daemon starts, says
    /// which file and why, and the other providers write.
    @Test func aBadProviderFileDisablesOnlyThatProvider() throws {
        let daemon = try DaemonProcess(providers: [("com.example.weather", "none")])
        try "[Provider]\nId=com.example.broken\nUser=0\nDataProtection=secret\n".write(
            to: daemon.root.appendingPathComponent("etc/providers.d/com.example.broken.conf"), atomically: true, encoding: .utf8)
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/today"))
        #expect(try client.call("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.broken/x")).error
            == "io.widgetd.ProviderNotRegistered")
        #expect(daemon.log.contains("provider_disabled"))
        #expect(daemon.log.contains("com.example.broken.conf:4"))
        // The line's level is said once: "error: FILE:4: invalid value…", not "error: FILE:4: error: …".
        let line = try #require(daemon.log.split(separator: "\n").first { $0.contains("com.example.broken.conf:4") })
        #expect(line.hasPrefix("error: "), "\(line)")
        #expect(line.components(separatedBy: "error:").count == 2, "\(line)")
    }

    @Test func aBadConfigurationIsRejectedWithFileAndLine() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=soon"])
        #expect(throws: (any Error).self) { try daemon.start() }
        #expect(daemon.log.contains("widgetd.conf:3"))
    }

    private static var socketActivateInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")
    }

    @Test(.enabled(if: socketActivateInstalled, "needs systemd-socket-activate (Debian's systemd)"))
    func socketActivationServesThePassedSocket() throws {
        let daemon = try DaemonProcess()
        let process = try ChildProcess("/usr/bin/systemd-socket-activate", [
            "-l", daemon.socketPath, DaemonProcess.binary.path,
            "--config", daemon.configFile.path, "--state-directory", daemon.stateDirectory.path,
        ])
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        // systemd-socket-activate binds the socket, then starts widgetd on the first connection.
        var client: VarlinkTestClient?
        for _ in 0..<200 where client == nil {
            client = try? VarlinkTestClient(path: daemon.socketPath)
            if client == nil { usleep(50_000) }
        }
        let status = try #require(client).ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "unlocked")
    }
}
