import Glibc
import WidgetdClient

/// Why standard input could not be read.
package struct InputError: Error, Equatable {
    /// The `errno` of the failed read.
    package let errorNumber: Int32

    /// An error for `errorNumber`.
    package init(errorNumber: Int32) { self.errorNumber = errorNumber }
}

/// Where `widgetctl` reads standard input from: the process's, or a test's bytes.
///
/// Reads are byte-exact (no read-ahead beyond what is asked), so a passcode line
/// can be followed by another on the same stream. Used from one thread at a time.
package protocol InputSource: AnyObject {
    /// Whether this input is a terminal a person types at (passcodes are prompted for).
    var isTerminal: Bool { get }
    /// Reads up to `buffer.count` bytes; returns 0 at end of input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int
    /// Turns the terminal's echo on or off; does nothing when not a terminal.
    func setEcho(_ enabled: Bool)
}

/// The process's standard input.
package final class FileDescriptorInput: InputSource {
    private let fileDescriptor: Int32
    /// The terminal settings to restore when echo is turned back on.
    private var savedAttributes: termios?

    /// An input over `fileDescriptor`, which the caller keeps open.
    package init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Whether the descriptor is a terminal (`isatty`).
    package var isTerminal: Bool { isatty(fileDescriptor) == 1 }

    /// Reads what is available, retrying `EINTR`; the corresponding C function is `read`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        while true {
            let n = Glibc.read(fileDescriptor, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw InputError(errorNumber: errno) }
        }
    }

    /// Turns echo off or back on; while it is off, a fatal signal (Ctrl-C) restores it first.
    ///
    /// The corresponding C functions are `tcgetattr` and `tcsetattr`.
    package func setEcho(_ enabled: Bool) {
        if enabled {
            guard var saved = savedAttributes else { return }
            _ = tcsetattr(fileDescriptor, TCSAFLUSH, &saved)
            savedAttributes = nil
            TerminalRestore.disarm()
        } else {
            var attributes = termios()
            guard savedAttributes == nil, tcgetattr(fileDescriptor, &attributes) == 0 else { return }
            savedAttributes = attributes
            TerminalRestore.arm(fileDescriptor: fileDescriptor, attributes: attributes)
            attributes.c_lflag &= ~tcflag_t(ECHO)
            attributes.c_lflag |= tcflag_t(ECHONL)
            _ = tcsetattr(fileDescriptor, TCSAFLUSH, &attributes)
        }
    }
}

/// Restores terminal echo when a signal ends the process during a passcode prompt.
///
/// A signal handler can reach only globals; these are written before the handlers
/// are installed and after they are removed, on the one thread that prompts.
private enum TerminalRestore {
    nonisolated(unsafe) static var fileDescriptor: Int32 = -1
    nonisolated(unsafe) static var attributes = termios()
    static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func arm(fileDescriptor: Int32, attributes: termios) {
        Self.attributes = attributes
        Self.fileDescriptor = fileDescriptor
        for number in signals {
            signal(number) { number in
                if TerminalRestore.fileDescriptor >= 0 {
                    _ = tcsetattr(TerminalRestore.fileDescriptor, TCSANOW, &TerminalRestore.attributes)
                }
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    static func disarm() {
        for number in signals { signal(number, SIG_DFL) }
        fileDescriptor = -1
    }
}

/// Input from bytes in memory: what a test feeds to `WidgetControl.run`.
package final class BytesInput: InputSource {
    private var bytes: ArraySlice<UInt8>
    /// Whether this input claims to be a terminal, so passcodes are prompted for.
    package let isTerminal: Bool
    /// Whether echo is currently off: lets a test see that a passcode was read without echo.
    package private(set) var echoDisabled = false
    /// Whether echo was ever turned off.
    package private(set) var echoWasDisabled = false

    /// Input holding `bytes`, presenting itself as a terminal when `isTerminal`.
    package init(_ bytes: [UInt8] = [], isTerminal: Bool = false) {
        self.bytes = bytes[...]
        self.isTerminal = isTerminal
    }

    /// Input holding the UTF-8 of `text`.
    package convenience init(_ text: String, isTerminal: Bool = false) {
        self.init(Array(text.utf8), isTerminal: isTerminal)
    }

    /// Hands out the next bytes; 0 once all were read.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let n = min(buffer.count, bytes.count)
        for (offset, byte) in bytes.prefix(n).enumerated() { buffer[offset] = byte }
        bytes = bytes.dropFirst(n)
        return n
    }

    /// Records the echo state instead of changing a terminal.
    package func setEcho(_ enabled: Bool) {
        echoDisabled = !enabled
        if !enabled { echoWasDisabled = true }
    }
}

extension InputSource {
    /// Reads everything to the end of input (a timeline file given as `-`).
    func readToEnd(limit: Int) throws(CommandFailure) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try readReportingFailure { buffer in chunk.withUnsafeMutableBytes { buffer($0) } }
            if n == 0 { return result }
            result += chunk[0..<n]
            if result.count > limit {
                throw CommandFailure("standard input is larger than \(limit) bytes")
            }
        }
    }

    /// Reads one line into `secret`, without its line ending; false at end of input with nothing read.
    func readLine(into secret: ZeroingBuffer) throws(CommandFailure) -> Bool {
        var byte: UInt8 = 0
        var sawAny = false
        while true {
            let n = try readReportingFailure { body in withUnsafeMutableBytes(of: &byte) { body($0) } }
            if n == 0 { break }
            sawAny = true
            if byte == UInt8(ascii: "\n") { break }
            guard secret.append(byte) else {
                byte = 0
                throw CommandFailure("passcode is longer than \(secret.capacity) bytes")
            }
        }
        byte = 0
        if secret.last == UInt8(ascii: "\r") { secret.removeLast(1) }
        return sawAny
    }

    /// Reads through `withBuffer`, which lends a buffer to the read it is given.
    ///
    /// Array's buffer accessors rethrow untyped errors, so the read's result travels as a `Result`.
    private func readReportingFailure(
        _ withBuffer: ((UnsafeMutableRawBufferPointer) -> Result<Int, InputError>) -> Result<Int, InputError>
    ) throws(CommandFailure) -> Int {
        let result = withBuffer { buffer in
            do throws(InputError) { return .success(try read(into: buffer)) } catch { return .failure(error) }
        }
        switch result {
        case .success(let n): return n
        case .failure(let error):
            throw CommandFailure("cannot read standard input: \(String(cString: strerror(error.errorNumber)))")
        }
    }
}
