import Foundation
import Testing
import TestSupport

/// Runs the built `widgetctl` as a process: `main` wires the real streams and exit code.
@Suite struct BinaryTests {
    /// `.build/<triple>/debug/widgetctl`, beside the test bundle.
    static func binary() throws -> URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("widgetctl")
    }

    private func run(_ arguments: [String], environment: [String: String], input: String = "")
        throws -> (Int32, String, String)
    {
        let result = try ChildProcess.run(try Self.binary().path, arguments, environment: environment, input: Data(input.utf8))
        return (result.status, result.output, result.error)
    }

    @Test func builtBinaryReportsAMissingDaemonWithExit69() throws {
        #expect(FileManager.default.isExecutableFile(atPath: try Self.binary().path))
        let directory = try TemporaryDirectory.make()
        let (code, out, err) = try run(["status"], environment: ["WIDGETD_SOCKET": directory + "/none.sock"])
        #expect(code == 69)
        #expect(out == "")
        #expect(err == "widgetctl: widgetd is not running (no socket at \(directory)/none.sock); start it with 'systemctl --user start widgetd.socket' (or run 'widgetd'), or give its socket with --socket PATH or WIDGETD_SOCKET\n")
    }

    @Test func builtBinaryUnlocksWithPasscodeFromStandardInput() throws {
        let server = try unlockServer()
        let (code, out, _) = try run(
            ["--socket", server.path, "unlock", "--passcode-stdin"], environment: [:], input: "s3cret\n")
        #expect(code == 0)
        #expect(out == "Unlocked.\n")
        #expect(server.requests == unlockChecks + [#"{"method":"io.widgetd.Device.Unlock","parameters":{"passcode":"s3cret"}}"#])
    }

    @Test func builtBinaryRefusesAPositionalPasscode() throws {
        let (code, out, err) = try run(["unlock", "s3cret"], environment: [:])
        #expect(code == 64)
        #expect(out == "")
        #expect(err.hasPrefix("Error: a passcode is never taken from the command line"))
    }
}
