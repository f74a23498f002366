import Foundation
import TestSupport

/// Runs a program to completion and collects what it printed.
enum ProcessRunner {
    typealias Result = ChildProcess.Result

    /// Runs `executable`; `environment` replaces the inherited one when given, and
    /// `standardInput` is a file to read from (else nothing).
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, standardInput: URL? = nil
    ) throws -> Result {
        try ChildProcess.run(executable.path, arguments, environment: environment, standardInputFile: standardInput?.path)
    }
}
