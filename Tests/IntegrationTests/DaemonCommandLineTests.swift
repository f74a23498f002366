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
