import Foundation

/// Runs a program to completion and collects what it printed.
enum ProcessRunner {
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs `executable`; `environment` replaces the inherited one when given, and
    /// `standardInput` is a file to read from (else nothing).
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, standardInput: URL? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = try standardInput.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: output, error: error)
    }
}
