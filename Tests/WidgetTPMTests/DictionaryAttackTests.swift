import Foundation
import Glibc
import SecureMemory
import Testing
import WidgetTPM

/// The passcode tangle: a sealed object whose auth value comes from the passcode, so
/// that the TPM counts wrong passcodes where no file restore reaches.
@Suite struct DictionaryAttackTests {
    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func wrongPasscodesCountAndLockOutTheRightOneAcrossRebootAndRestore() throws {
        let tpm = try SoftwareTPM()
        let right = try SecureBytes.random(count: 32), wrong = try SecureBytes.random(count: 32)
        let secret = try SecureBytes.random(count: 32)
        let file = "\(tpm.directory)/tangle.blob"
        do {
            // A recovery time far beyond the test: nothing is forgiven while it runs.
            let device = try tpm.device(maxTries: 3, recoveryTime: 1000)
            let blob = try device.seal(secret, authValue: right)
            #expect(blob.requiresAuthValue)
            #expect(try device.unseal(blob, authValue: right).constantTimeEquals(secret))
            // The blob before any failure, as a backup would hold it.
            try Data(blob.bytes).write(to: URL(fileURLWithPath: file))
            for attempt in 1...3 {
                let error = #expect(throws: TPM2Error.self) { try device.unseal(blob, authValue: wrong) }
                guard case .authorizationFailed(let code) = error else { Issue.record("attempt \(attempt): \(String(describing: error))"); return }
                #expect(code.matches(.authFail))
                #expect(try device.dictionaryAttackStatus().failedTries == UInt32(attempt))
            }
            #expect(try device.dictionaryAttackStatus().inLockout)
            let refused = #expect(throws: TPM2Error.self) { try device.unseal(blob, authValue: right) }
            guard case .lockedOut(let code) = refused else { Issue.record("right passcode in lockout: \(String(describing: refused))"); return }
            #expect(code.matches(.lockout))
            // The device key (noDA) still opens: a lockout must not stop the daemon starting.
            #expect(try device.unseal(device.seal(secret)).constantTimeEquals(secret))
        }
        // A reboot with no orderly shutdown, then the blob restored from before the failures.
        let device = try tpm.reboot()
        let restored = try TPM2SealedBlob(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        let status = try device.dictionaryAttackStatus()
        #expect(status.failedTries >= 3)
        #expect(status.inLockout)
        let refused = #expect(throws: TPM2Error.self) { try device.unseal(restored, authValue: right) }
        guard case .lockedOut = refused else { Issue.record("after reboot and restore: \(String(describing: refused))"); return }
        // Only the lockout hierarchy's owner lifts it early.
        try device.resetDictionaryAttackLockout()
        #expect(try device.unseal(restored, authValue: right).constantTimeEquals(secret))
    }

    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func lockoutEndsAfterTheRecoveryTime() throws {
        let tpm = try SoftwareTPM()
        let device = try tpm.device(maxTries: 1, recoveryTime: 1)
        let right = try SecureBytes.random(count: 32), wrong = try SecureBytes.random(count: 32)
        let secret = try SecureBytes.random(count: 32)
        let blob = try device.seal(secret, authValue: right)
        #expect(throws: TPM2Error.self) { try device.unseal(blob, authValue: wrong) }
        #expect(try device.dictionaryAttackStatus().inLockout)
        // The TPM forgives one failure per recovery time; poll (bounded) rather than
        // guess how long a loaded machine takes. Tries in lockout are not counted.
        var opened: SecureBytes?
        for _ in 0..<300 where opened == nil {
            do { opened = try device.unseal(blob, authValue: right) } catch .lockedOut { usleep(100_000) }
        }
        #expect(try #require(opened).constantTimeEquals(secret))
        #expect(try device.dictionaryAttackStatus().failedTries == 0)
    }

    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tangleBlobRefusesToOpenWithoutItsAuthValue() throws {
        let tpm = try SoftwareTPM()
        let device = try tpm.device()
        let blob = try device.seal(try SecureBytes.random(count: 32), authValue: try SecureBytes.random(count: 32))
        #expect(throws: TPM2Error.malformedBlob("sealed with an auth value")) { try device.unseal(blob) }
        // Refused before the TPM: nothing was counted.
        #expect(try device.dictionaryAttackStatus().failedTries == 0)
    }
}
