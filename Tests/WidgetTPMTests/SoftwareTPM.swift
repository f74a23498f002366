import Glibc
import TestSupport
import WidgetTPM

/// One swtpm for one test (``SwtpmServer``), opened through WidgetTPM.
final class SoftwareTPM: @unchecked Sendable {
    /// Whether the tests that need a TPM can run (Debian: `swtpm swtpm-tools`).
    static let isInstalled = SwtpmServer.isInstalled

    let server: SwtpmServer

    var directory: String { server.directory }
    var socket: String { server.socket }
    var control: String { server.control }
    /// The tpm2-tss TCTI string for this TPM.
    var tcti: String { server.tcti }

    init() throws { server = try SwtpmServer() }

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
        try server.reset()
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
}
