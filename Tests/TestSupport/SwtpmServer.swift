import Foundation
import Glibc

/// One swtpm process for one test, on a Unix socket in a private temporary directory,
/// killed and removed when the test lets go of it. The TPM-module tests open it through
/// WidgetTPM (`SoftwareTPM`); the daemon's tests hand its ``tcti`` to `TPM2Device=`.
///
/// `--flags not-need-init,startup-clear`: the TPM is started and ready when the socket
/// appears, as a firmware-initialised TPM is at boot.
public final class SwtpmServer: @unchecked Sendable {
    public static let swtpm = "/usr/bin/swtpm"
    public static let swtpmIoctl = "/usr/bin/swtpm_ioctl"
    /// Whether the tests that need a TPM can run (Debian: `swtpm swtpm-tools`).
    public static let isInstalled = access(swtpm, X_OK) == 0 && access(swtpmIoctl, X_OK) == 0

    /// The TPM's own directory (its state, its sockets); a test may put more in it.
    public let directory: String
    private var process: ChildProcess

    public var socket: String { "\(directory)/sock" }
    public var control: String { "\(directory)/sock.ctrl" }
    /// The tpm2-tss TCTI string for this TPM.
    public var tcti: String { "swtpm:path=\(socket)" }

    public init() throws {
        var template = Array("/tmp/widgetd-swtpm-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SwtpmFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        process = try Self.start(in: directory)
        try waitForSocket()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Ends swtpm now (a TPM gone); the directory stays until the object goes.
    public func kill() {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }

    /// Resets the TPM as at power-on, with no orderly shutdown before (`swtpm_ioctl -i`);
    /// the caller sends `TPM2_Startup(CLEAR)` after.
    ///
    /// Tried up to three times: on a loaded machine swtpm_ioctl's own receive timeout
    /// has expired before swtpm answered (`PTM_INIT: Connection timed out`), and a second
    /// init is the same reset again, so a retry changes nothing a test looks at; then
    /// swtpm is restarted on its state, which is a power cycle too.
    public func reset() throws {
        var result = try ChildProcess.run(Self.swtpmIoctl, ["--unix", control, "-i"])
        for _ in 1..<3 where result.status != 0 {
            result = try ChildProcess.run(Self.swtpmIoctl, ["--unix", control, "-i"])
        }
        if result.status == 0 { return }
        // Once, on a loaded machine, the retries could no longer even connect to the
        // control socket. A power cycle is the same reset: end swtpm and start it again
        // on the same state, initialised but not started up (the caller's Startup is next).
        kill()
        unlink(socket)
        unlink(control)
        process = try Self.start(in: directory, startup: false)
        try waitForSocket()
    }

    /// `startup`: send `TPM2_Startup(CLEAR)` itself, as firmware does at boot.
    private static func start(in directory: String, startup: Bool = true) throws -> ChildProcess {
        try ChildProcess(
            swtpm,
            [
                "socket", "--tpm2", "--tpmstate", "dir=\(directory)",
                "--server", "type=unixio,path=\(directory)/sock",
                "--ctrl", "type=unixio,path=\(directory)/sock.ctrl",
                "--flags", startup ? "not-need-init,startup-clear" : "not-need-init",
            ])
    }

    /// Readiness, bounded: swtpm creates the socket once it listens.
    private func waitForSocket() throws {
        for _ in 0..<1000 {
            if access(socket, F_OK) == 0 && access(control, F_OK) == 0 { return }
            guard process.isRunning else { throw SwtpmFailure("swtpm exited with status \(process.terminationStatus)") }
            usleep(10_000)
        }
        throw SwtpmFailure("swtpm did not listen on \(socket) within 10 s")
    }
}

/// swtpm could not be started or driven (the tests' machinery, not the code under test).
public struct SwtpmFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
