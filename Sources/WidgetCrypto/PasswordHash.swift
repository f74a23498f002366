import CSodium
import SecureMemory

/// The cost of one Argon2id derivation: passes over memory, and memory in bytes.
package struct KDFCost: Sendable, Hashable, CustomStringConvertible {
    /// Number of passes (`opslimit`).
    package var opsLimit: UInt64
    /// Memory in bytes (`memlimit`).
    package var memLimit: UInt64

    /// A cost; no range check here, `PasswordHash.derive` rejects values libsodium refuses.
    package init(opsLimit: UInt64, memLimit: UInt64) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// About 100 ms and 64 MiB on this kind of machine: the default for an unlock.
    package static let interactive = KDFCost(
        opsLimit: UInt64(crypto_pwhash_opslimit_interactive()), memLimit: UInt64(crypto_pwhash_memlimit_interactive()))
    /// About 0.7 s and 256 MiB.
    package static let moderate = KDFCost(
        opsLimit: UInt64(crypto_pwhash_opslimit_moderate()), memLimit: UInt64(crypto_pwhash_memlimit_moderate()))
    /// Several seconds and 1 GiB.
    package static let sensitive = KDFCost(
        opsLimit: UInt64(crypto_pwhash_opslimit_sensitive()), memLimit: UInt64(crypto_pwhash_memlimit_sensitive()))
    /// The smallest cost libsodium accepts: for tests only, so that suites stay fast.
    package static let minimum = KDFCost(
        opsLimit: UInt64(crypto_pwhash_opslimit_min()), memLimit: UInt64(crypto_pwhash_memlimit_min()))

    package var description: String { "Argon2id(ops: \(opsLimit), mem: \(memLimit / 1024) KiB)" }
}

/// Argon2id (version 1.3) passcode hashing: slow on purpose, so that guessing is slow.
package enum PasswordHash {
    /// Salt length in bytes.
    package static let saltByteCount = Int(crypto_pwhash_saltbytes())

    /// Derives `outputLength` key bytes from a passcode and a salt.
    ///
    /// The corresponding C function is `crypto_pwhash` with `crypto_pwhash_ALG_ARGON2ID13`.
    package static func derive(
        passcode: SecureBytes, salt: [UInt8], cost: KDFCost, outputLength: Int = 32
    ) throws(CryptoError) -> SecureBytes {
        try Sodium.ensureInitialized()
        guard salt.count == saltByteCount else {
            throw .invalidLength(what: "Argon2id salt", expected: saltByteCount, actual: salt.count)
        }
        guard cost.opsLimit >= UInt64(crypto_pwhash_opslimit_min()),
            cost.opsLimit <= UInt64(crypto_pwhash_opslimit_max()),
            cost.memLimit >= UInt64(crypto_pwhash_memlimit_min()),
            cost.memLimit <= UInt64(crypto_pwhash_memlimit_max())
        else { throw .operationFailed("crypto_pwhash (cost out of range: \(cost))") }
        let output = try CryptoError.mapping { () throws(SecureMemoryError) in try SecureBytes.zeroed(count: outputLength) }
        let result = output.withUnsafeMutableBytes { out in
            passcode.withUnsafeBytes { p in
                // An empty passcode has no base address; libsodium accepts any pointer for length 0.
                let password = p.baseAddress?.assumingMemoryBound(to: CChar.self) ?? UnsafePointer<CChar>(bitPattern: 1)!
                return crypto_pwhash(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(out.count),
                    password, UInt64(p.count), salt,
                    cost.opsLimit, Int(cost.memLimit), crypto_pwhash_alg_argon2id13())
            }
        }
        try Sodium.check(result, "crypto_pwhash")
        return output
    }
}
