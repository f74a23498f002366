import Foundation
import Glibc
import SecureMemory
import StoreKeys
import Testing
import TestSupport
import WidgetCrypto
import WidgetTPM

@testable import WidgetDaemon
@testable import WidgetStore

/// `KeyProtection=tpm2`: passcode attempts verified by the TPM (DESIGN §9). The store is
/// wired as the daemon wires it (`DaemonRuntime.passcodeVerifier(for:)`), on one swtpm
/// per test with its dictionary-attack parameters shrunk.
@Suite struct TPM2PasscodeVerifierTests {

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func rightPasscodeUnlocksThroughTheTPMAndStatusSaysTPM2() throws {
        let f = try TPMStoreFixture()
        var store: TimelineStore? = try f.open()
        #expect(store!.attemptCounting == .tpm2)
        try store!.setPasscode(current: nil, new: passcode("1234"), now: .at(f.now))
        #expect(store!.custody.keybag.tangleBlob != nil)
        #expect(store!.attemptCounting == .tpm2)
        store = nil
        // A restart: only class D until the passcode is verified by the TPM.
        store = try f.open()
        #expect(store!.deviceState == .beforeFirstUnlock)
        try store!.unlock(passcode: passcode("1234"), now: .at(f.now))
        #expect(store!.deviceState == .unlocked)
        #expect(store!.isKeyAvailable(.complete))
        #expect(try f.device.dictionaryAttackStatus().failedTries == 0)
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func wrongPasscodeIsAnAuthorisationFailureTheTPMCounts() throws {
        let f = try TPMStoreFixture()
        let store = try f.open()
        try store.setPasscode(current: nil, new: passcode("1234"), now: .at(f.now))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: passcode("0000"), now: .at(f.now))
        }
        #expect(try f.device.dictionaryAttackStatus().failedTries == 1)
        // The same wrong passcode again is known wrong: not counted, not sent to the TPM.
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: passcode("0000"), now: .at(f.now))
        }
        #expect(try f.device.dictionaryAttackStatus().failedTries == 1)
        // A wrong current passcode in a change is counted the same way.
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 2, retryAfter: nil)) {
            try store.setPasscode(current: passcode("1111"), new: passcode("5678"), now: .at(f.now))
        }
        #expect(try f.device.dictionaryAttackStatus().failedTries == 2)
        try store.unlock(passcode: passcode("1234"), now: .at(f.now))
        #expect(store.failedAttempts == 0)
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpmLockoutSurvivesAKeybagRestoreAndARebootAndAnswersTryAgainLater() throws {
        var configuration = TPMStoreFixture.configuration
        configuration.wipeAfterFailedAttempts = 4
        let f = try TPMStoreFixture(maxTries: 3, recoveryTime: 1000)
        var store: TimelineStore? = try f.open(configuration)
        try store!.setPasscode(current: nil, new: passcode("1234"), now: .at(f.now))
        let backup = try f.keybag()
        for (attempt, guess) in ["0000", "1111", "2222"].enumerated() {
            #expect(throws: StoreError.wrongPasscode(failedAttempts: attempt + 1, retryAfter: nil)) {
                try store!.unlock(passcode: passcode(guess), now: .at(f.now))
            }
        }
        #expect(try f.device.dictionaryAttackStatus().inLockout)
        // In lockout every attempt is TryAgainLater with the TPM's recovery time: never a
        // wrong passcode counted, never the wipe that a fourth counted failure would be.
        #expect(throws: StoreError.tryAgainLater(retryAfter: 1000)) {
            try store!.unlock(passcode: passcode("3333"), now: .at(f.now))
        }
        #expect(store!.failedAttempts == 3)
        #expect(throws: StoreError.tryAgainLater(retryAfter: 1000)) {
            try store!.unlock(passcode: passcode("1234"), now: .at(f.now))
        }

        // The keybag from before the failures put back, and a reboot with no orderly shutdown.
        store = nil
        try f.restore(keybag: backup)
        try f.reboot()
        let status = try f.device.dictionaryAttackStatus()
        #expect(status.failedTries >= 3)
        #expect(status.inLockout)
        store = try f.open(configuration)
        #expect(store!.failedAttempts == 0)
        #expect(throws: StoreError.tryAgainLater(retryAfter: 1000)) {
            try store!.unlock(passcode: passcode("1234"), now: .at(f.now))
        }
        #expect(store!.deviceState == .beforeFirstUnlock)
        #expect(store!.failedAttempts == 0)
        // Only the lockout hierarchy's owner lifts it early; then the right passcode opens.
        try f.device.resetDictionaryAttackLockout()
        try store!.unlock(passcode: passcode("1234"), now: .at(f.now))
        #expect(store!.deviceState == .unlocked)
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func statusRetryAfterShowsATPMLockoutBeforeAnyPasscodeIsAsked() throws {
        let f = try TPMStoreFixture(maxTries: 3, recoveryTime: 1000)
        var store: TimelineStore? = try f.open()
        try store!.setPasscode(current: nil, new: passcode("1234"), now: .at(f.now))
        let backup = try f.keybag()
        for guess in ["0000", "1111", "2222"] {
            #expect(throws: StoreError.self) { try store!.unlock(passcode: passcode(guess), now: .at(f.now)) }
        }
        #expect(try f.device.dictionaryAttackStatus().inLockout)
        // The keybag's own count forgotten (restored): only the TPM knows of the lockout,
        // and GetStatus's retryAfter (what `widgetctl unlock` reads before it prompts) says so.
        store = nil
        try f.restore(keybag: backup)
        store = try f.open()
        #expect(store!.failedAttempts == 0)
        #expect(store!.retryAfter(now: .at(f.now)) == 1000)
        try f.device.resetDictionaryAttackLockout()
        #expect(store!.retryAfter(now: .at(f.now)) == nil)
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tangleBlobOpensOnNoOtherTPMAndNotAfterAWipe() throws {
        let f = try TPMStoreFixture()
        let store = try f.open()
        try store.setPasscode(current: nil, new: passcode("1234"), now: .at(f.now))
        let blob = try #require(store.custody.keybag.tangleBlob)
        let key = try f.passcodeKey(passcode("1234"), of: store)
        let verifier = TPM2StorePasscodeVerifier(device: f.device)
        guard case .right = try verifier.open(blob, passcodeKey: key) else {
            Issue.record("the right passcode key did not open the blob on its TPM")
            return
        }

        // Another TPM refuses the blob whatever the passcode, and counts nothing.
        let other = try TPMStoreFixture()
        let elsewhere = TPM2StorePasscodeVerifier(device: other.device)
        #expect(throws: KeyError.self) { try elsewhere.open(blob, passcodeKey: key) }
        #expect(try other.device.dictionaryAttackStatus().failedTries == 0)

        // After a wipe the blob from before opens nothing on its own TPM either.
        try store.wipe()
        let error = #expect(throws: KeyError.self) { try verifier.open(blob, passcodeKey: key) }
        guard case .passcodeVerifierFailed = error else { Issue.record("after a wipe: \(String(describing: error))"); return }
        #expect(try f.device.dictionaryAttackStatus().failedTries == 0)
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func filesAloneCannotVerifyAPasscodeInTPM2Mode() throws {
        let f = try TPMStoreFixture()
        let store = try f.open()
        try store.setPasscode(current: nil, new: passcode("1234"), now: .at(f.now))
        // Everything the files give, the device key even: Argon2id of the right passcode
        // tangled with it does not unwrap a class key without the TPM's secret.
        let key = try f.passcodeKey(passcode("1234"), of: store)
        let keybag = store.custody.keybag
        #expect(throws: CryptoError.authenticationFailure) { _ = try keybag.unwrapNewestClassA(with: key) }
        let blob = try #require(keybag.tangleBlob)
        guard case .right(let secret) = try TPM2StorePasscodeVerifier(device: f.device).open(blob, passcodeKey: key) else {
            Issue.record("the right passcode key did not open the blob")
            return
        }
        _ = try keybag.unwrapNewestClassA(with: try entangle(key, with: secret))
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func passcodeChangeSealsANewTangleAndRemovalDropsIt() throws {
        let f = try TPMStoreFixture()
        let store = try f.open()
        try store.setPasscode(current: nil, new: passcode("1234"), now: .at(f.now))
        let first = try #require(store.custody.keybag.tangleBlob)
        try store.setPasscode(current: passcode("1234"), new: passcode("5678"), now: .at(f.now))
        let second = try #require(store.custody.keybag.tangleBlob)
        #expect(second != first)
        store.lock(now: .at(f.now))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: passcode("1234"), now: .at(f.now))
        }
        try store.unlock(passcode: passcode("5678"), now: .at(f.now))
        try store.setPasscode(current: passcode("5678"), new: nil, now: .at(f.now))
        #expect(store.custody.keybag.tangleBlob == nil)
        #expect(!store.passcodeSet)
        #expect(store.attemptCounting == .tpm2)
    }
}

/// One swtpm, one state directory, and the store opened on them as `KeyProtection=tpm2`
/// opens it. The TPM device is the test's, so that it can read the dictionary-attack
/// state while the store holds it (swtpm serves one connection at a time).
private final class TPMStoreFixture {
    static var configuration: StoreConfiguration {
        var c = StoreConfiguration()
        c.kdfCost = .minimum
        return c
    }

    let server: SwtpmServer
    private(set) var device: TPM2Device!
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var state: String { "\(server.directory)/state" }

    init(maxTries: UInt32 = 3, recoveryTime: UInt32 = 1000) throws {
        server = try SwtpmServer()
        device = try Self.connect(server.tcti)
        try device.setDictionaryAttackParameters(maxTries: maxTries, recoveryTime: recoveryTime, lockoutRecovery: 0)
    }

    /// The store, wired as the daemon wires it for `KeyProtection=tpm2`.
    func open(_ configuration: StoreConfiguration = configuration) throws -> TimelineStore {
        let source = TPM2StoreDeviceKeySource(sealed: TPM2DeviceKeySource(device: device, stateDirectory: state))
        return try TimelineStore(
            stateDirectory: state, deviceKeySource: source, passcodeVerifier: DaemonRuntime.passcodeVerifier(for: source),
            configuration: configuration, journalCapacity: 0, now: now)
    }

    /// A simulated reboot (`swtpm_ioctl -i`, then `TPM2_Startup(CLEAR)`). The store must be released first.
    func reboot() throws {
        device = nil
        try server.reset()
        device = try Self.connect(server.tcti)
        try device.startup()
    }

    func keybag() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: "\(state)/\(Keybag.fileName)")) }

    func restore(keybag: Data) throws { try keybag.write(to: URL(fileURLWithPath: "\(state)/\(Keybag.fileName)")) }

    /// What Argon2id tangled with the device key gives for `passcode` (what the files
    /// and the device key allow anyone to compute), from the store's own derivation.
    func passcodeKey(_ passcode: SecureBytes, of store: TimelineStore) throws -> SecureBytes {
        var derivation = try store.beginUnlock(now: .at(now))
        derivation.verification = nil
        return try #require(try derivation.derive(passcode).key)
    }

    /// Opens the TPM, retrying (bounded) while swtpm is still closing the previous connection.
    private static func connect(_ tcti: String) throws -> TPM2Device {
        for _ in 0..<500 {
            do { return try TPM2Device(tcti: tcti) } catch .unavailable { usleep(10_000) }
        }
        return try TPM2Device(tcti: tcti)
    }
}

private func passcode(_ text: String) -> SecureBytes {
    try! Array(text.utf8).withUnsafeBytes { try SecureBytes(copying: $0) }
}
