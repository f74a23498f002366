import Glibc

/// Where `widgetctl` writes text: standard output, standard error, or a test's buffer.
///
/// Sinks are used from one thread at a time.
package protocol TextSink: AnyObject {
    /// Writes `text` as UTF-8, unbuffered, so streamed output appears at once.
    func write(_ text: String)
}

/// A sink that writes to an open file descriptor.
package final class FileDescriptorSink: TextSink, Sendable {
    /// The process's standard output.
    package static let standardOutput = FileDescriptorSink(fileDescriptor: STDOUT_FILENO)
    /// The process's standard error.
    package static let standardError = FileDescriptorSink(fileDescriptor: STDERR_FILENO)

    private let fileDescriptor: Int32

    /// A sink over `fileDescriptor`, which the caller keeps open.
    package init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Writes every byte, retrying `EINTR`; a closed pipe drops the rest.
    package func write(_ text: String) {
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
package final class TextBuffer: TextSink {
    /// Everything written so far.
    package private(set) var text = ""

    /// An empty buffer.
    package init() {}

    /// Appends `text`.
    package func write(_ text: String) { self.text += text }
}
