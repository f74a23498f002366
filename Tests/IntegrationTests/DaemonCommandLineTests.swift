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
