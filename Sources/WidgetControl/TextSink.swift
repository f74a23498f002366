import Glibc

/// Where `widgetctl` writes text: standard output, standard error, or a test's buffer.
///
/// Sinks are used from one thread at a time.
public protocol TextSink: AnyObject {
    /// Writes `text` as UTF-8, unbuffered, so streamed output appears at once.
    func write(_ text: String)
}

/// A sink that writes to an open file descriptor.
public final class FileDescriptorSink: TextSink, Sendable {
    /// The process's standard output.
    public static let standardOutput = FileDescriptorSink(fileDescriptor: STDOUT_FILENO)
    /// The process's standard error.
    public static let standardError = FileDescriptorSink(fileDescriptor: STDERR_FILENO)

    private let fileDescriptor: Int32

    /// A sink over `fileDescriptor`, which the caller keeps open.
    public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Writes every byte, retrying `EINTR`; a closed pipe drops the rest.
    public func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fileDescriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return  // A closed pipe: nobody is reading, so there is nobody to tell.
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// A sink that keeps what was written, for tests and for composing output.
public final class TextBuffer: TextSink {
    /// Everything written so far.
    public private(set) var text = ""

    /// An empty buffer.
    public init() {}

    /// Appends `text`.
    public func write(_ text: String) { self.text += text }
}
