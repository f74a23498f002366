import SecureMemory
import Testing
@testable import WidgetCrypto

private func bytes(_ s: SecureBytes) -> [UInt8] { s.withUnsafeBytes { Array($0) } }
private func secure(_ a: [UInt8]) throws -> SecureBytes { try a.withUnsafeBytes { try SecureBytes(copying: $0) } }

/// What secure memory reports reaches the crypto layer's callers as the crypto error
/// they already handle, with the same words.
@Suite struct SecureMemoryErrorMappingRules {
    @Test func secureMemoryFailuresKeepTheirCaseAndWords() {
        #expect(CryptoError(SecureMemoryError.outOfSecureMemory) == .outOfSecureMemory)
        #expect(CryptoError(SecureMemoryError.initializationFailed) == .initializationFailed)
        #expect(CryptoError.outOfSecureMemory.description == SecureMemoryError.outOfSecureMemory.description)
        #expect(CryptoError.initializationFailed.description == SecureMemoryError.initializationFailed.description)
    }

    @Test func mappingPassesResultsAndMapsFailures() throws {
        #expect(try CryptoError.mapping { () throws(SecureMemoryError) in 7 } == 7)
        #expect(throws: CryptoError.outOfSecureMemory) {
            try CryptoError.mapping { () throws(SecureMemoryError) -> Int in throw .outOfSecureMemory }
        }
    }
}

@Suite struct ConstantTimeEqualsRules {
    @Test func arraysAndSlicesCompareByTheirBytes() {
        let tag: [UInt8] = [1, 2, 3, 4]
        #expect(Sodium.constantTimeEquals(tag, [1, 2, 3, 4] as [UInt8]))
        #expect(!Sodium.constantTimeEquals(tag, [1, 2, 3, 5] as [UInt8]))
        // A slice is compared from its own start, not its base's.
        let stored: [UInt8] = [9, 9, 1, 2, 3, 4]
        #expect(Sodium.constantTimeEquals(tag, stored[2...]))
        #expect(!Sodium.constantTimeEquals(tag, stored[1..<5]))
    }

    @Test func differentLengthsAndEmptiesAreJudgedByLength() {
        #expect(!Sodium.constantTimeEquals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(Sodium.constantTimeEquals([] as [UInt8], [] as [UInt8]))
    }
}

@Suite struct AEADRules {
    @Test func sealThenOpenRoundTrips() throws {
        let key = try AEAD.generateKey()
        let sealed = try AEAD.seal([1, 2, 3, 4], key: key, associatedData: [7])
        #expect(sealed.count == 4 + AEAD.overhead)
        #expect(bytes(try AEAD.open(sealed, key: key, associatedData: [7])) == [1, 2, 3, 4])
    }

    @Test func everyFlippedByteFailsAuthentication() throws {
        let key = try AEAD.generateKey()
        let sealed = try AEAD.seal([1, 2, 3, 4], key: key, associatedData: [7])
        for i in sealed.indices {
            var bad = sealed
            bad[i] ^= 0x01
            #expect(throws: CryptoError.authenticationFailure) { try AEAD.open(bad, key: key, associatedData: [7]) }
        }
    }

    @Test func otherAssociatedDataOrKeyFails() throws {
        let key = try AEAD.generateKey()
        let sealed = try AEAD.seal([1, 2, 3], key: key, associatedData: [7])
        #expect(throws: CryptoError.authenticationFailure) { try AEAD.open(sealed, key: key, associatedData: [8]) }
        #expect(throws: CryptoError.authenticationFailure) {
            try AEAD.open(sealed, key: try AEAD.generateKey(), associatedData: [7])
        }
        #expect(throws: CryptoError.authenticationFailure) {
            try AEAD.open(Array(sealed.prefix(10)), key: key, associatedData: [7])
        }
    }

    @Test func wrongKeyLengthIsATypedError() throws {
        let short = try SecureBytes.random(count: 16)
        #expect(throws: CryptoError.invalidLength(what: "AEAD key", expected: 32, actual: 16)) {
            try AEAD.seal([1], key: short, associatedData: [])
        }
    }
}

@Suite struct SealedBoxRules {
    @Test func onlyTheRecipientOpens() throws {
        let alice = try KeyPair.generate(), eve = try KeyPair.generate()
        let secret = try secure([5, 6, 7])
        let sealed = try SealedBox.seal(secret, to: alice.publicKey)
        #expect(bytes(try SealedBox.open(sealed, keyPair: alice)) == [5, 6, 7])
        #expect(throws: CryptoError.authenticationFailure) { try SealedBox.open(sealed, keyPair: eve) }
        var bad = sealed
        bad[bad.count - 1] ^= 1
        #expect(throws: CryptoError.authenticationFailure) { try SealedBox.open(bad, keyPair: alice) }
    }

    @Test func mismatchedKeyPairIsRejected() throws {
        let a = try KeyPair.generate(), b = try KeyPair.generate()
        #expect(throws: CryptoError.authenticationFailure) { try KeyPair(publicKey: a.publicKey, secretKey: b.secretKey) }
        _ = try KeyPair(publicKey: a.publicKey, secretKey: a.secretKey)
    }
}

@Suite struct KeyEncryptionKeyRules {
    @Test func onlyTheRecipientRecoversTheKey() throws {
        let alice = try KeyPair.generate(), eve = try KeyPair.generate()
        let kek = try KeyEncryptionKey.agree(with: alice.publicKey)
        #expect(kek.recipient == alice.publicKey)
        #expect(try KeyEncryptionKey.recover(ephemeral: kek.ephemeralPublicKey, keyPair: alice).constantTimeEquals(kek.key))
        #expect(!(try KeyEncryptionKey.recover(ephemeral: kek.ephemeralPublicKey, keyPair: eve).constantTimeEquals(kek.key)))
        // A key wrapped under it opens only with the recovered key.
        let wrapped = try AEAD.seal(try secure([1, 2, 3]), key: kek.key, associatedData: [9])
        let recovered = try KeyEncryptionKey.recover(ephemeral: kek.ephemeralPublicKey, keyPair: alice)
        #expect(bytes(try AEAD.open(wrapped, key: recovered, associatedData: [9])) == [1, 2, 3])
    }

    @Test func everyAgreementIsFresh() throws {
        let alice = try KeyPair.generate()
        let first = try KeyEncryptionKey.agree(with: alice.publicKey)
        let second = try KeyEncryptionKey.agree(with: alice.publicKey)
        #expect(first.ephemeralPublicKey != second.ephemeralPublicKey)
        #expect(!first.key.constantTimeEquals(second.key))
    }

    @Test func aLowOrderEphemeralKeyIsRejected() throws {
        let alice = try KeyPair.generate()
        let zero = try PublicKey(bytes: [UInt8](repeating: 0, count: PublicKey.byteCount))
        #expect(throws: CryptoError.authenticationFailure) { try KeyEncryptionKey.recover(ephemeral: zero, keyPair: alice) }
    }

    @Test func zeroingClearsTheKey() throws {
        let kek = try KeyEncryptionKey.agree(with: try KeyPair.generate().publicKey)
        #expect(bytes(kek.key) != [UInt8](repeating: 0, count: 32))
        kek.zero()
        #expect(bytes(kek.key) == [UInt8](repeating: 0, count: 32))
    }
}

@Suite struct KeyDerivationRules {
    @Test func argon2idIsDeterministicPerSalt() throws {
        let pass = try secure(Array("1234".utf8))
        let salt1 = try Sodium.randomBytes(count: PasswordHash.saltByteCount)
        let salt2 = try Sodium.randomBytes(count: PasswordHash.saltByteCount)
        let k1 = try PasswordHash.derive(passcode: pass, salt: salt1, cost: .minimum)
        #expect(k1.count == 32)
        #expect(k1.constantTimeEquals(try PasswordHash.derive(passcode: pass, salt: salt1, cost: .minimum)))
        #expect(!k1.constantTimeEquals(try PasswordHash.derive(passcode: pass, salt: salt2, cost: .minimum)))
        let other = try secure(Array("1235".utf8))
        #expect(!k1.constantTimeEquals(try PasswordHash.derive(passcode: other, salt: salt1, cost: .minimum)))
    }

    @Test func argon2idRejectsABadSalt() throws {
        #expect(throws: CryptoError.self) {
            try PasswordHash.derive(passcode: try secure([1]), salt: [1, 2], cost: .minimum)
        }
    }

    @Test func keyedHashDependsOnKeyAndInput() throws {
        let k1 = try SecureBytes.random(count: 32), k2 = try SecureBytes.random(count: 32)
        let h = try KeyedHash.hash([1, 2, 3], key: k1)
        #expect(h.constantTimeEquals(try KeyedHash.hash([1, 2, 3], key: k1)))
        #expect(!h.constantTimeEquals(try KeyedHash.hash([1, 2, 3], key: k2)))
        #expect(!h.constantTimeEquals(try KeyedHash.hash([1, 2, 4], key: k1)))
        #expect(try KeyedHash.hash([1], key: k1, outputLength: 16).count == 16)
        #expect(!(try KeyedHash.deriveKey(from: k1, label: "a")).constantTimeEquals(try KeyedHash.deriveKey(from: k1, label: "b")))
    }
}
