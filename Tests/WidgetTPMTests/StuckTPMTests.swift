import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
import WidgetTPM

/// A TPM that takes a command and never answers (a wedged swtpm, a stuck TPM behind a
/// socket) is a typed error within the device's I/O bound, never a daemon hung in a read.
@Suite struct StuckTPMTests {
    /// A Unix socket that listens and never reads nor answers, in place of a swtpm's
    /// command socket (its control socket still answers, as the TCTI asks it for the
    /// locality when it opens): the kernel completes each connection in the backlog, so
    /// the connect and the command's write succeed.
    private final class SilentListener {
        let tpm: SwtpmServer
        let fd: Int32
        var path: String { tpm.socket }

        init() throws {
            tpm = try SwtpmServer()
            unlink(tpm.socket)
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(tpm.socket.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EIO) }
        }

        deinit { close(fd) }
    }

    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func aTPMThatNeverAnswersIsATypedErrorWithinTheBound() throws {
        let listener = try SilentListener()
        let tcti = "swtpm:path=\(listener.path)"
        let outcome = Mutex<Result<Void, TPM2Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        // On its own thread, so that a read without a bound fails this test instead of
        // hanging the run.
        Thread.detachNewThread {
            let result = Result { () throws(TPM2Error) in
                let device = try TPM2Device(tcti: tcti, ioTimeout: .milliseconds(200))
                _ = try device.dictionaryAttackStatus()
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + 20) == .success else {
            Issue.record("the command to a TPM that never answers was still waiting after 20 s")
            return
        }
        let elapsed = ContinuousClock.now - started
        switch outcome.withLock({ $0 }) {
        case .failure(.noAnswer(let command, _)): #expect(command == "GetCapability")
        case let other: Issue.record("expected noAnswer, got \(String(describing: other))")
        }
        #expect(elapsed < .seconds(10), "\(elapsed)")
    }
}
