import SecureMemory
import Testing
import WidgetTPM

/// The NV counter, and what a wipe does in the TPM.
@Suite struct CounterTests {
    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func counterIsMonotonicAndSurvivesAReboot() throws {
        let tpm = try SoftwareTPM()
        var last: UInt64
        do {
            let device = try tpm.device()
            #expect(throws: TPM2Error.counterUninitialized(index: TPM2Indices.standard.counter)) { try device.readCounter() }
            last = try device.incrementCounter()
            for _ in 0..<5 {
                let next = try device.incrementCounter()
                #expect(next == last + 1)
                #expect(try device.readCounter() == next)
                last = next
            }
        }
        let device = try tpm.reboot()
        #expect(try device.readCounter() == last)
        #expect(try device.incrementCounter() == last + 1)
    }

    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func wipeAdvancesTheCounterAndNoOldBlobOpensAgain() throws {
        let tpm = try SoftwareTPM()
        let device = try tpm.device()
        let auth = try SecureBytes.random(count: 32)
        let deviceKey = try device.seal(try SecureBytes.random(count: 32))
        let tangle = try device.seal(try SecureBytes.random(count: 32), authValue: auth)
        let before = try device.incrementCounter()
        #expect(try device.wipe() > before)
        #expect(throws: TPM2Error.storageSeedMissing(index: TPM2Indices.standard.storageSeed)) { try device.unseal(deviceKey) }
        // The next installation seals under a fresh seed: still nothing old opens, even
        // though the template is the same (the seed is not in any backup).
        let fresh = try SecureBytes.random(count: 32)
        #expect(try device.unseal(device.seal(fresh)).constantTimeEquals(fresh))
        for (blob, authValue) in [(deviceKey, nil), (tangle, auth)] {
            let error = #expect(throws: TPM2Error.self) { try device.unseal(blob, authValue: authValue) }
            guard case .blobRejected = error else { Issue.record("old blob after wipe: \(String(describing: error))"); continue }
        }
        // Refused at load, before any authorisation: not counted as a wrong passcode.
        #expect(try device.dictionaryAttackStatus().failedTries == 0)
    }

    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func foreignIndexAtTheCounterIsNeverUsed() throws {
        let tpm = try SoftwareTPM()
        let device = try tpm.device()
        // The storage seed's index stands in for another program's index at our place.
        _ = try device.seal(try SecureBytes.random(count: 32))
        let misplaced = try TPM2Device(
            tcti: tpm.tcti, indices: TPM2Indices(counter: TPM2Indices.standard.storageSeed, storageSeed: 0x0180_5746))
        _ = consume device
        #expect(throws: TPM2Error.foreignIndex(index: TPM2Indices.standard.storageSeed)) { try misplaced.incrementCounter() }
    }
}
