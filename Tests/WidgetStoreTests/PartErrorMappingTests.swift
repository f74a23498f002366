import Testing
import WidgetCrypto
import WidgetdPOSIX
@testable import StoreAnchor
@testable import StoreFiles
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// Each part's error maps onto the one `StoreError` it stands for, with the same text:
/// the daemon's Varlink errors and messages are chosen from `StoreError` alone.
@Suite struct PartErrorMapping {
    static let io = FileError.io(operation: "open", path: "/s/catalog", errno: Errno(rawValue: 5))

    static let ledgerCases: [(FileError, StoreError)] = [
        (.corrupt(file: "/s/catalog", reason: .authenticationFailure), .corrupt(file: "/s/catalog", reason: .authenticationFailure)),
        (.corrupt(file: "/s/t/x.wtl", reason: .rolledBack), .corrupt(file: "/s/t/x.wtl", reason: .rolledBack)),
        (.unsafeEntry(path: "/s/t/y", reason: .symbolicLink), .unsafeEntry(path: "/s/t/y", reason: .symbolicLink)),
        (.ledgerMissing(path: "/s/catalog.base.3"), .ledgerMissing(path: "/s/catalog.base.3")),
        (.stateDirectoryInUse(path: "/s"), .stateDirectoryInUse(path: "/s")),
        (io, .io(operation: "open", path: "/s/catalog", errno: Errno(rawValue: 5))),
        (.crypto(.outOfSecureMemory), .outOfSecureMemory),
        (.crypto(.operationFailed("argon2id")), .cryptoFailure(CryptoError.operationFailed("argon2id").description)),
        (.anchor(.rollbackCounter(reason: "gone")), .rollbackCounter(reason: "gone")),
        (.anchor(.rolledBack(file: "/s/catalog", found: 3, expected: 4)), .rolledBack(file: "/s/catalog", found: 3, expected: 4)),
    ]

    static let keyCases: [(KeyError, StoreError)] = [
        (.wrongPasscode(failedAttempts: 1, retryAfter: nil), .wrongPasscode(failedAttempts: 1, retryAfter: nil)),
        (.wrongPasscode(failedAttempts: 3, retryAfter: 59.2), .wrongPasscode(failedAttempts: 3, retryAfter: 59.2)),
        (.tryAgainLater(retryAfter: 0.5), .tryAgainLater(retryAfter: 0.5)),
        (.passcodeRequired, .passcodeRequired),
        (.unlockInterrupted, .unlockInterrupted),
        (.noPasscodeSet, .noPasscodeSet),
        (.deviceKey(.missing(path: "/s/device.key")), .deviceKey(.missing(path: "/s/device.key"))),
        (.deviceKey(.wrongSize(path: "/s/device.key", bytes: 31)), .deviceKey(.wrongSize(path: "/s/device.key", bytes: 31))),
        (.deviceKey(.sourceFailed(source: .tpm2, reason: "sealed elsewhere")),
         .deviceKey(.sourceFailed(source: .tpm2, reason: "sealed elsewhere"))),
        (.passcodeVerifierFailed(reason: "no TPM"), .passcodeVerifierFailed(reason: "no TPM")),
        (.anchor(.rolledBack(file: "/s/keybag", found: 3, expected: 4)), .rolledBack(file: "/s/keybag", found: 3, expected: 4)),
        (.anchor(.rollbackCounter(reason: "reset")), .rollbackCounter(reason: "reset")),
        (.file(.corrupt(file: "/s/keybag", reason: .badMagic)), .corrupt(file: "/s/keybag", reason: .badMagic)),
        (.file(io), .io(operation: "open", path: "/s/catalog", errno: Errno(rawValue: 5))),
        (.crypto(.outOfSecureMemory), .outOfSecureMemory),
        (.crypto(.authenticationFailure), .cryptoFailure(CryptoError.authenticationFailure.description)),
    ]

    @Test(arguments: ledgerCases)
    func ledgerErrorMapsToItsStoreError(_ error: FileError, _ expected: StoreError) {
        #expect(StoreError(error) == expected)
        #expect(error.description == expected.description)
    }

    @Test(arguments: keyCases)
    func keyErrorMapsToItsStoreError(_ error: KeyError, _ expected: StoreError) {
        #expect(StoreError(error) == expected)
        #expect(error.description == expected.description)
    }

    /// An anchored save's own failure is its part's, not wrapped as the anchor's.
    @Test func anchoredSaveKeepsEachPartsOwnError() {
        #expect(FileError(anchoring: .write(Self.io)) == Self.io)
        #expect(FileError(anchoring: .anchor(.rollbackCounter(reason: "x"))) == .anchor(.rollbackCounter(reason: "x")))
        #expect(KeyError(AnchoredSaveError<KeyError>.write(.noPasscodeSet)) == .noPasscodeSet)
        #expect(KeyError(AnchoredSaveError<KeyError>.anchor(.rollbackCounter(reason: "x"))) == .anchor(.rollbackCounter(reason: "x")))
    }

    /// The texts the daemon sends are the ones it always sent (a few pinned byte for byte).
    @Test func textsAreUnchanged() {
        #expect(StoreError.wrongPasscode(failedAttempts: 2, retryAfter: 4.1).description == "wrong passcode (2 failed attempts); try again in 5 s")
        #expect(StoreError.corrupt(file: "/s/k", reason: .truncated).description == "/s/k: truncated")
        #expect(StoreError.unsafeEntry(path: "/s/t/f", reason: .notRegularFile).description
            == "refused /s/t/f: it is not a regular file (a FIFO, socket, device or directory)")
        #expect(StoreError.rollbackCounter(reason: "r").description == "the rollback counter cannot be used: r")
        #expect(StoreError.stateDirectoryInUse(path: "/s").description == "the state directory /s is in use by another widgetd process")
    }
}
