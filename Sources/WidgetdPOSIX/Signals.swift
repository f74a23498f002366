import CSystemShims
import Glibc

/// The termination and reload signals, delivered as callbacks on the event loop.
///
/// Signals are blocked for every thread and read from a `signalfd`, so no handler runs
/// at an arbitrary point of the program: a SIGTERM is just another event of the loop.
/// Call ``blockDaemonSignals()`` first thing in `main`, before any thread starts, so that
/// every thread inherits the mask.
package final class Signals {
    /// A signal the daemon acts on.
    package enum Signal: Int32, Sendable, CaseIterable {
        /// SIGTERM: stop (systemd's stop).
        case terminate = 15
        /// SIGINT: stop (Ctrl-C in a terminal).
        case interrupt = 2
        /// SIGHUP: reload the configuration.
        case hangUp = 1
    }

    private let loop: EventLoop
    private let fd: FileDescriptor
    private var watch: WatchID?

    /// Blocks SIGTERM, SIGINT and SIGHUP, and only those, in the calling thread (and the
    /// threads it starts later), and ignores SIGPIPE: a client that goes away must not
    /// kill the daemon. Every other signal is unblocked, whatever the parent left blocked.
    package static func blockDaemonSignals() throws(SystemError) {
        shim_ignore_sigpipe()
        let numbers = Signal.allCases.map(\.rawValue)
        let result = numbers.withUnsafeBufferPointer { shim_block_signals($0.baseAddress, Int32($0.count)) }
        guard result == 0 else { throw SystemError("pthread_sigmask", code: result) }
    }

    /// Delivers the daemon's signals to `handler` on `loop`.
    ///
    /// The signals must already be blocked (``blockDaemonSignals()``); otherwise their
    /// default action (termination) happens before the loop sees them.
    package init(loop: EventLoop, handler: @escaping (Signal) -> Void) throws(SystemError) {
        let numbers = Signal.allCases.map(\.rawValue)
        let fd = FileDescriptor(
            rawValue: try Syscall.retrying("signalfd") {
                numbers.withUnsafeBufferPointer { shim_signalfd_create($0.baseAddress, Int32($0.count)) }
            })
        self.loop = loop
        self.fd = fd
        do {
            watch = try loop.watch(fd, for: .readable) { [unowned self] _ in self.drain(handler) }
        } catch {
            Syscall.close(fd)
            throw error
        }
    }

    private func drain(_ handler: (Signal) -> Void) {
        while true {
            let number = shim_signalfd_read(fd.rawValue)
            guard number > 0 else { return }
            if let signal = Signal(rawValue: number) { handler(signal) }
        }
    }

    /// Stops delivering signals.
    package func close() {
        if let watch { loop.unwatch(watch) }
        watch = nil
    }

    deinit {
        close()
        Syscall.close(fd)
    }
}
