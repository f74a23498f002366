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
}
