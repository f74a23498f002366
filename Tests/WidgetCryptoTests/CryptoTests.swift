import Glibc
import Testing
@testable import WidgetCrypto

private func bytes(_ s: SecureBytes) -> [UInt8] { s.withUnsafeBytes { Array($0) } }
private func secure(_ a: [UInt8]) throws -> SecureBytes { try a.withUnsafeBytes { try SecureBytes(copying: $0) } }

@Suite struct SecureBytesRules {
    @Test func zeroedBufferHoldsZeros() throws {
        let z = try SecureBytes.zeroed(count: 64)
        #expect(z.count == 64)
        #expect(bytes(z) == [UInt8](repeating: 0, count: 64))
    }

    @Test func randomBuffersDiffer() throws {
        let a = try SecureBytes.random(count: 32), b = try SecureBytes.random(count: 32)
        #expect(!a.constantTimeEquals(b))
        #expect(a.constantTimeEquals(try a.copy()))
    }

    @Test func appendGrowsAndKeepsBytes() throws {
        let s = try SecureBytes.empty(reservingCapacity: 2)
        try ([1, 2, 3] as [UInt8]).withUnsafeBytes { try s.append($0) }
        try s.append(try secure(Array(repeating: 9, count: 100)))
        #expect(s.count == 103)
        #expect(bytes(s).prefix(3) == [1, 2, 3])
        s.removeAll()
        #expect(s.isEmpty)
    }

    @Test func buffersOfDifferentLengthAreNotEqual() throws {
        #expect(!(try secure([1, 2])).constantTimeEquals(try secure([1, 2, 3])))
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

@Suite struct LockedMemoryLimitRules {
    /// Within the limit (or with CAP_IPC_LOCK, as root in CI) secure memory says it is
    /// locked, and no failure is counted; the failing case needs a process of its own
    /// (IntegrationTests/LockedMemoryTests), since the limit is the whole process's.
    @Test func secureBytesWithinTheLimitAreLocked() throws {
        let before = LockedMemory.failureCount
        let small = try SecureBytes.zeroed(count: 100)
        let large = try SecureBytes.zeroed(count: 100 << 10)
        #expect(small.isLocked && large.isLocked)
        try small.reserveCapacity(200 << 10)
        #expect(small.isLocked)
        #expect(LockedMemory.failureCount == before)
    }
}

/// Released secure regions are kept zeroed and handed out again only for their size class.
@Suite struct SecureRegionCacheTests {
    @Test func sizesRoundUpToAPowerOfTwoOfAtLeast32Bytes() {
        #expect(SecureRegionCache.regionSize(for: 1) == 32)
        #expect(SecureRegionCache.regionSize(for: 32) == 32)
        #expect(SecureRegionCache.regionSize(for: 33) == 64)
        #expect(SecureRegionCache.regionSize(for: 3_000) == 4_096)
        #expect(SecureRegionCache.regionSize(for: 64 << 10) == 64 << 10)
        // Above the largest kept size, exact: such regions are never kept.
        #expect(SecureRegionCache.regionSize(for: (64 << 10) + 1) == (64 << 10) + 1)
    }

    @Test func aReleasedBufferIsZeroedAndReusedForItsSizeClassOnly() throws {
        // An unusual size class, so that no other test's buffers interfere.
        let size = 64 << 10
        var address: UInt = 0
        do {
            let secret = try SecureBytes.zeroed(count: size - 100)
            secret.withUnsafeMutableBytes { buffer in
                for i in buffer.indices { buffer[i] = 0xA5 }
                address = UInt(bitPattern: buffer.baseAddress!)
            }
        }
        let other = try SecureBytes.zeroed(count: 100)
        other.withUnsafeBytes { #expect(UInt(bitPattern: $0.baseAddress!) != address) }
        let reused = try SecureBytes.zeroed(count: size - 1)
        reused.withUnsafeBytes { buffer in
            #expect(UInt(bitPattern: buffer.baseAddress!) == address, "the kept region is handed out again")
            #expect(buffer.allSatisfy { $0 == 0 }, "and holds nothing of the secret it held")
        }
    }
}
