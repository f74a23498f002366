import Foundation
import Testing

/// `KeyProtection=tpm2` never starts on a software device key (DESIGN §9: no silent
/// fallback).
@Suite struct KeyProtectionStartTests {
    @Test func tpm2KeyProtectionThatCannotBeHonouredStopsTheStart() throws {
        let daemon = try DaemonProcess(daemon: ["KeyProtection=tpm2", "TPM2Device=swtpm:path=/nonexistent/widgetd/sock"])
        let result = try ProcessRunner.run(
            DaemonProcess.binary,
            ["--config", daemon.configFile.path, "--state-directory", daemon.stateDirectory.path, "--socket", daemon.socketPath])
        #expect(result.status != 0)
        #expect(result.error.contains("KeyProtection=tpm2"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory.path + "/device.key"))
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }
}
