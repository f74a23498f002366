import Foundation
import SecureMemory
import Testing
import WidgetTPM

/// The TPM-sealed device key as the store's device-key source sees it.
@Suite struct DeviceKeySourceTests {
    @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func deviceKeyIsStoredOnlyAsABlobAndDiesWithTheWipe() throws {
        let tpm = try SoftwareTPM()
        let state = "\(tpm.directory)/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let source = TPM2DeviceKeySource(device: try tpm.device(), stateDirectory: state)
        #expect(throws: TPM2DeviceKeyError.missing(path: source.blobPath)) { try source.loadDeviceKey(mayCreate: false) }
        let key = try source.loadDeviceKey(mayCreate: true)
        #expect(key.count == 32)
        #expect(try source.loadDeviceKey(mayCreate: false).constantTimeEquals(key))
        let attributes = try FileManager.default.attributesOfItem(atPath: source.blobPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let backup = try Data(contentsOf: URL(fileURLWithPath: source.blobPath))
        key.withUnsafeBytes { bytes in #expect(Array(backup).firstRange(of: Array(bytes)) == nil) }

        try source.destroyDeviceKey()
        #expect(!FileManager.default.fileExists(atPath: source.blobPath))
        // A backup of the blob, put back, opens nothing.
        try backup.write(to: URL(fileURLWithPath: source.blobPath))
        let error = #expect(throws: TPM2DeviceKeyError.self) { try source.loadDeviceKey(mayCreate: false) }
        // A store on the standard indices leaves them at its wipe for a pair of its own,
        // whose seed the old blob's parent was never derived from.
        #expect(source.device.indices != .standard)
        guard case .tpm(.blobRejected) = error else { Issue.record("\(String(describing: error))"); return }
        // An interrupted wipe is finished by another.
        try source.destroyDeviceKey()
    }

    @Test func configuredButMissingTPMIsAStartError() {
        let tcti = "swtpm:path=/nonexistent/widgetd-test/sock"
        let error = #expect(throws: TPM2DeviceKeyError.self) {
            try TPM2DeviceKeySource.open(tcti: tcti, stateDirectory: "/nonexistent")
        }
        guard case .deviceUnavailable(let named, .unavailable) = error else {
            Issue.record("expected deviceUnavailable, got \(String(describing: error))")
            return
        }
        #expect(named == tcti)
        #expect(String(describing: error!).contains("does not fall back"))
    }

    @Test func tangleAuthValueIsDerivedNotThePasscodeKey() throws {
        let passcodeKey = try SecureBytes.random(count: 32)
        let auth = try TPM2PasscodeTangle.authValue(fromPasscodeKey: passcodeKey)
        #expect(auth.count == TPM2Device.maximumAuthValueCount)
        #expect(!auth.constantTimeEquals(passcodeKey))
        #expect(try TPM2PasscodeTangle.authValue(fromPasscodeKey: passcodeKey).constantTimeEquals(auth))
    }
}
