import Foundation
import Testing

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
        let process = Process()
        process.executableURL = try Self.binary()
        process.arguments = arguments
        process.environment = environment
        let output = Pipe(), error = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        standardInput.fileHandleForWriting.write(Data(input.utf8))
        try standardInput.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func builtBinaryReportsAMissingDaemonWithExit69() throws {
        #expect(FileManager.default.isExecutableFile(atPath: try Self.binary().path))
        let directory = try TemporaryDirectory.make()
        let (code, out, err) = try run(["status"], environment: ["WIDGETD_SOCKET": directory + "/none.sock"])
        #expect(code == 69)
        #expect(out == "")
        #expect(err == "widgetctl: widgetd is not running (no socket at \(directory)/none.sock)\n")
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
