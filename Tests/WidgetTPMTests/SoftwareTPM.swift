import Foundation
import Glibc
import TestSupport
import WidgetTPM

/// One swtpm for one test, on a Unix socket in a private temporary directory, killed
/// and removed when the test lets go of it.
///
/// `--flags not-need-init,startup-clear`: the TPM is started and ready when the socket
/// appears, as a firmware-initialised TPM is at boot.
final class SoftwareTPM: @unchecked Sendable {
    static let swtpm = "/usr/bin/swtpm"
    static let swtpmIoctl = "/usr/bin/swtpm_ioctl"
    /// Whether the tests that need a TPM can run (Debian: `swtpm swtpm-tools`).
    static let isInstalled = access(swtpm, X_OK) == 0 && access(swtpmIoctl, X_OK) == 0

    let directory: String
    private var process: ChildProcess

    var socket: String { "\(directory)/sock" }
    var control: String { "\(directory)/sock.ctrl" }
    /// The tpm2-tss TCTI string for this TPM.
    var tcti: String { "swtpm:path=\(socket)" }

    init() throws {
        var template = Array("/tmp/widgetd-swtpm-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        process = try Self.start(in: directory)
        try waitForSocket()
    }

    deinit {
        process.signal(SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Opens the TPM, with the dictionary-attack parameters given (lockout-auth recovery 0).
    func device(maxTries: UInt32 = 3, recoveryTime: UInt32 = 1000) throws -> TPM2Device {
        let device = try open()
        try device.setDictionaryAttackParameters(maxTries: maxTries, recoveryTime: recoveryTime, lockoutRecovery: 0)
        return device
    }

    /// A simulated reboot: the TPM is reset (`swtpm_ioctl -i`, as at power-on, with no
    /// orderly shutdown before) and started again (`TPM2_Startup(CLEAR)`). Every device
    /// opened on it must have been released first: swtpm serves one connection at a time.
    func reboot() throws -> TPM2Device {
        let result = try ChildProcess.run(Self.swtpmIoctl, ["--unix", control, "-i"])
        guard result.status == 0 else { throw TestFailure("swtpm_ioctl -i: \(result.status) \(result.error)") }
        let device = try open()
        try device.startup()
        return device
    }

    /// Opens the TPM, retrying (bounded) while swtpm has bound its socket but does not
    /// listen yet, or is still closing the previous connection.
    private func open() throws -> TPM2Device {
        for _ in 0..<500 {
            do { return try TPM2Device(tcti: tcti) } catch .unavailable { usleep(10_000) }
        }
        return try TPM2Device(tcti: tcti)
    }

    private static func start(in directory: String) throws -> ChildProcess {
        try ChildProcess(
            swtpm,
            [
                "socket", "--tpm2", "--tpmstate", "dir=\(directory)",
                "--server", "type=unixio,path=\(directory)/sock",
                "--ctrl", "type=unixio,path=\(directory)/sock.ctrl",
                "--flags", "not-need-init,startup-clear",
            ])
    }

    /// Readiness, bounded: swtpm creates the socket once it listens.
    private func waitForSocket() throws {
        for _ in 0..<1000 {
            if access(socket, F_OK) == 0 && access(control, F_OK) == 0 { return }
            guard process.isRunning else { throw TestFailure("swtpm exited with status \(process.terminationStatus)") }
            usleep(10_000)
        }
        throw TestFailure("swtpm did not listen on \(socket) within 10 s")
    }
}

/// A failure of the test's own machinery (not of the code under test).
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
