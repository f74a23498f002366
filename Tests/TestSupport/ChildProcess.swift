import CSystemShims
import Foundation
import Glibc

/// A program the tests start, through `posix_spawn`.
///
/// Why not Foundation's `Process`: on Linux it can close a file descriptor twice when
/// processes are started from several threads at once (swiftlang/swift#57827), and in
/// a parallel test run that second close once hit a file another test was writing.
/// `posix_spawn` takes the descriptors the child should have and touches no others.
///
/// The standard streams are descriptors the caller owns (or `/dev/null`); the child
/// gets copies, so the caller closes its own whenever it likes.
public final class ChildProcess: @unchecked Sendable {
    /// The child's pid.
    public let processIdentifier: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?
    private var killedBySignal = false

    /// Why a program could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        /// The program.
        public let path: String
        /// The error number `posix_spawn` returned.
        public let code: Int32
        /// The program and the reason.
        public var description: String { "cannot start \(path): \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` with `arguments` (not including the program name).
    ///
    /// `environment` replaces the inherited one when given; `directory` is the working
    /// directory (else the caller's). `standardInput`, `standardOutput` and
    /// `standardError` are descriptors to give the child; `nil` means `/dev/null`.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // The child starts with default signal dispositions and an empty mask: the test
        // runner may block signals (SIGTERM among them) that a daemon must receive.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = environment ?? ProcessInfo.processInfo.environment
        // glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift; env(1)
        // changes directory and execs the program in the same process.
        let (program, words) = directory.map { ("/usr/bin/env", ["/usr/bin/env", "--chdir=\($0)", executable] + arguments) }
            ?? (executable, [executable] + arguments)
        let argv = words.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnError(path: executable, code: result) }
        processIdentifier = pid
    }

    deinit {
        // A child nobody waited for would stay a zombie until the test run ends.
        if exitStatus == nil {
            kill(processIdentifier, SIGKILL)
            _ = reap(blocking: true)
        }
    }

    /// Whether the child has not exited yet (reaps it if it has).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for the child to exit.
    public func waitUntilExit() { _ = reap(blocking: true) }

    /// The exit status, or 128 + the signal number that ended it; waits if needed.
    public var terminationStatus: Int32 { reap(blocking: true) ?? -1 }

    /// Whether a signal ended the child (waits if needed).
    public var terminatedBySignal: Bool { terminationStatus > 128 && killedBySignal }

    /// Sends `signal` to the child, if it still runs.
    public func signal(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    private func reap(blocking: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while true {
            let result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
            if result == -1, errno == EINTR { continue }
            guard result == processIdentifier else { return nil }
            break
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc does not export as functions.
        let signal = status & 0x7f
        killedBySignal = signal != 0
        exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return exitStatus
    }

    /// What a program printed, and how it ended.
    public struct Result: Sendable {
        /// The exit status (128 + signal when a signal ended it).
        public let status: Int32
        /// Standard output.
        public let output: String
        /// Standard error.
        public let error: String
    }

    /// Runs `executable` to the end, with `input` on its standard input, and collects
    /// what it printed. Both outputs are read while it runs, so a chatty child cannot
    /// block on a full pipe.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        input: Data? = nil, standardInputFile: String? = nil
    ) throws -> Result {
        let output = try PipePair(), error = try PipePair()
        let inputPipe = input == nil ? nil : try PipePair()
        var inputFile: Int32?
        if let standardInputFile {
            inputFile = open(standardInputFile, O_RDONLY | O_CLOEXEC)
            guard inputFile! >= 0 else { throw SpawnError(path: standardInputFile, code: errno) }
        }
        defer { if let inputFile { close(inputFile) } }
        let child = try ChildProcess(
            executable, arguments, environment: environment,
            standardInput: inputPipe?.read ?? inputFile, standardOutput: output.write, standardError: error.write)
        output.closeWrite()
        error.closeWrite()
        if let input, let inputPipe {
            input.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = Glibc.write(inputPipe.write, bytes.baseAddress! + offset, bytes.count - offset)
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 { break }
                    offset += n
                }
            }
            inputPipe.closeWrite()
        }
        // Read standard error on another thread so that neither pipe can fill up.
        let errorText = ErrorCollector()
        let reader = Thread { errorText.set(error.readAll()) }
        reader.start()
        let outputText = output.readAll()
        errorText.wait()
        child.waitUntilExit()
        return Result(status: child.terminationStatus, output: outputText, error: errorText.value)
    }
}

/// A pipe whose ends the caller closes once each. The read end of an input pipe stays
/// open in the parent until the end, so that writing to a child that exited without
/// reading cannot raise SIGPIPE in the test runner.
public final class PipePair: @unchecked Sendable {
    /// The read end.
    public let read: Int32
    /// The write end, until ``closeWrite()``.
    public private(set) var write: Int32

    /// A new pipe.
    public init() throws {
        var fds: [Int32] = [0, 0]
        // Close-on-exec from the start, so that no child another test starts meanwhile
        // inherits an end and holds the pipe open (the child gets its copy through
        // dup2, which clears the flag).
        guard shim_pipe_cloexec(&fds) == 0 else { throw ChildProcess.SpawnError(path: "pipe", code: errno) }
        read = fds[0]
        write = fds[1]
    }

    deinit {
        close(read)
        if write >= 0 { close(write) }
    }

    /// Closes the write end, once the child has its copy.
    public func closeWrite() {
        if write >= 0 { close(write) }
        write = -1
    }

    /// Everything until end of file, as UTF-8 text.
    public func readAll() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: buffer[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Standard error's text, handed from the reading thread.
private final class ErrorCollector: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private(set) var value = ""
    func set(_ text: String) {
        value = text
        done.signal()
    }
    func wait() { done.wait() }
}
