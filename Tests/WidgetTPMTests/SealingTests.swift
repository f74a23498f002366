import Foundation
import Glibc
import SecureMemory
import Testing
import WidgetTPM

/// Sealing and unsealing the device key, against a swtpm per test.
@Suite struct SealingTests {
    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func sealedDeviceKeyUnsealsToTheSameBytesAfterAReboot() throws {
        let tpm = try SoftwareTPM()
        let key = try SecureBytes.random(count: 32)
        var stored: [UInt8]
        do {
            let device = try tpm.device()
            let blob = try device.seal(key)
            #expect(!blob.requiresAuthValue)
            stored = blob.bytes
            #expect(try device.unseal(TPM2SealedBlob(bytes: stored)).constantTimeEquals(key))
        }
        let device = try tpm.reboot()
        #expect(try device.unseal(TPM2SealedBlob(bytes: stored)).constantTimeEquals(key))
        // The blob carries no copy of the key.
        key.withUnsafeBytes { bytes in #expect(stored.firstRange(of: Array(bytes)) == nil) }
        stored.removeAll()
    }

    /// The test machinery's own fallback: a swtpm whose control channel is gone is
    /// restarted on its state for a reboot, and what it sealed still unseals.
    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func aRebootWithoutTheControlChannelIsAPowerCycleOfTheSameTPM() throws {
        let tpm = try SoftwareTPM()
        let key = try SecureBytes.random(count: 32)
        let stored = try tpm.device().seal(key).bytes
        unlink(tpm.control)
        let device = try tpm.reboot()
        #expect(try device.unseal(TPM2SealedBlob(bytes: stored)).constantTimeEquals(key))
    }

    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func blobDoesNotUnsealOnAnotherTPM() throws {
        let first = try SoftwareTPM(), second = try SoftwareTPM()
        let one = try first.device(), other = try second.device()
        let blob = try one.seal(try SecureBytes.random(count: 32))
        // A TPM that never sealed anything has no storage seed at all...
        #expect(throws: TPM2Error.storageSeedMissing(index: TPM2Indices.standard.storageSeed)) { try other.unseal(blob) }
        // ...and once it has one, its primary key is not the blob's parent.
        _ = try other.seal(try SecureBytes.random(count: 32))
        let error = try #require(throws: TPM2Error.self) { try other.unseal(blob) }
        guard case .blobRejected = error else { Issue.record("expected blobRejected, got \(error)"); return }
    }

    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func handlesAreFlushedAcrossRepeatedCycles() throws {
        let tpm = try SoftwareTPM()
        let device = try tpm.device(maxTries: 1000)
        let auth = try SecureBytes.random(count: 32), wrong = try SecureBytes.random(count: 32)
        // swtpm holds 3 objects and 3 sessions: a leak per call fails within 3 calls, so
        // 12 cycles (two with failures) prove it. Not more: once in a few full runs a
        // reply from swtpm never came (the client blocked in the swtpm TCTI's read,
        // swtpm idle in poll), and each cycle is about 20 TPM commands.
        for cycle in 0..<12 {
            let secret = try SecureBytes.random(count: 32)
            let withAuth = cycle.isMultiple(of: 2)
            let blob = try device.seal(secret, authValue: withAuth ? auth : nil)
            #expect(try device.unseal(blob, authValue: withAuth ? auth : nil).constantTimeEquals(secret))
            if cycle.isMultiple(of: 10) {
                // Failures flush too.
                #expect(throws: TPM2Error.self) { try device.unseal(blob, authValue: withAuth ? wrong : nil) }
                _ = try device.incrementCounter()
            }
        }
    }

    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func secretsOfEveryAllowedLengthRoundTrip() throws {
        let tpm = try SoftwareTPM()
        let device = try tpm.device()
        for count in [1, 32, TPM2Device.maximumSecretCount] {
            let secret = try SecureBytes.random(count: count)
            #expect(try device.unseal(device.seal(secret)).constantTimeEquals(secret))
        }
        #expect(throws: TPM2Error.invalidLength(what: "sealed secret", expected: 1...128, actual: 129)) {
            try device.seal(try SecureBytes.random(count: 129))
        }
    }

    @Test(arguments: ["swtpm:path=/nonexistent/widgetd-test/sock", "device:/dev/nonexistent-tpmrm0", "nosuchtcti:x"])
    func missingTPMIsATypedError(tcti: String) {
        let error = #expect(throws: TPM2Error.self) { try TPM2Device(tcti: tcti) }
        guard case .unavailable(let named, _) = error else { Issue.record("expected unavailable, got \(String(describing: error))"); return }
        #expect(named == tcti)
    }

    @Test func malformedBlobsAreRefusedBeforeTheTPM() {
        for bytes: [UInt8] in [[], Array("WTPM".utf8), Array("WTPM".utf8) + [2, 0, 0, 0], Array("XTPM".utf8) + [1, 0, 0, 0],
                               Array("WTPM".utf8) + [1, 0] + [UInt8](repeating: 0xFF, count: 40)] {
            #expect(throws: TPM2Error.self) { try TPM2SealedBlob(bytes: bytes) }
        }
    }
}
