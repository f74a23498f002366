import FoundationEssentials
import WidgetCrypto
import WidgetModel

/// The keybag: one authenticated file holding everything needed to release class keys.
///
/// It holds the Argon2id cost and salt, the four class public keys, the wrapped
/// class secrets, and the failed-attempt state. Secrets of classes A, B and C are
/// wrapped (XChaCha20-Poly1305) under the passcode key while a passcode is set;
/// class D, and every class while there is no passcode, under a device subkey.
/// Changing or removing the passcode re-wraps these four secrets and nothing else,
/// so its cost does not depend on how many timelines exist.
///
/// The whole file is authenticated with keyed BLAKE2b under a device subkey: a
/// tampered keybag (say, a reset failure counter) is a typed error, never a reset.
///
/// Layout (little-endian): `"WKBG"`, version, opslimit u64, memlimit u64, salt
/// block, passcodeSet u8, failedAttempts u32, lastFailure date, wrong-passcode tag
/// (presence u8 + 32 bytes), then per class (A, B, C, D): code u8, public key (32),
/// wrapped secret block; and a 32-byte MAC over everything before it.
struct Keybag {
    static let fileName = "keybag"
    static let magic = Array("WKBG".utf8)
    static let version: UInt8 = 1
    static let macByteCount = 32
    static let tagByteCount = 32

    /// One class's key material as stored.
    struct ClassEntry {
        let publicKey: PublicKey
        var wrappedSecret: [UInt8]
    }

    var kdfCost: KDFCost
    var salt: [UInt8]
    var passcodeSet: Bool
    var failedAttempts: Int
    var lastFailure: Date?
    /// Keyed hash of the last wrong passcode key (not the passcode), so a repeat is not counted twice.
    var lastWrongTag: [UInt8]?
    var classes: [ProtectionClass: ClassEntry]

    /// Classes whose secret is wrapped under the passcode key while a passcode is set.
    static let passcodeClasses: [ProtectionClass] = [.complete, .completeUnlessOpen, .completeUntilFirstUserAuthentication]
    /// Storage order.
    static let order: [ProtectionClass] = [.complete, .completeUnlessOpen, .completeUntilFirstUserAuthentication, .none]

    /// A new keybag with fresh class keys and no passcode; returns the keys too.
    static func create(cost: KDFCost, deviceWrapKey: SecureBytes) throws(StoreError) -> (Keybag, [ProtectionClass: KeyPair]) {
        var pairs: [ProtectionClass: KeyPair] = [:]
        var entries: [ProtectionClass: ClassEntry] = [:]
        for c in order {
            let pair = try crypto { () throws(CryptoError) in try KeyPair.generate() }
            pairs[c] = pair
            entries[c] = ClassEntry(
                publicKey: pair.publicKey, wrappedSecret: try wrap(pair, protectionClass: c, under: deviceWrapKey))
        }
        let salt = try crypto { () throws(CryptoError) in try Sodium.randomBytes(count: PasswordHash.saltByteCount) }
        let bag = Keybag(
            kdfCost: cost, salt: salt, passcodeSet: false, failedAttempts: 0, lastFailure: nil, lastWrongTag: nil,
            classes: entries)
        return (bag, pairs)
    }

    /// The public key of a class (always available: writes need nothing else).
    func publicKey(_ c: ProtectionClass) -> PublicKey { classes[c]!.publicKey }

    private static func wrapAD(_ c: ProtectionClass, _ publicKey: PublicKey) -> [UInt8] {
        Array("widgetd.v1.class-secret".utf8) + [c.code] + publicKey.bytes
    }

    private static func wrap(_ pair: KeyPair, protectionClass c: ProtectionClass, under key: SecureBytes) throws(StoreError) -> [UInt8] {
        try crypto { () throws(CryptoError) in
            try AEAD.seal(pair.secretKey, key: key, associatedData: wrapAD(c, pair.publicKey))
        }
    }

    /// Unwraps one class secret; `CryptoError.authenticationFailure` if `key` is not the wrapping key.
    func unwrap(_ c: ProtectionClass, with key: SecureBytes) throws(CryptoError) -> KeyPair {
        let entry = classes[c]!
        let secret = try AEAD.open(entry.wrappedSecret, key: key, associatedData: Self.wrapAD(c, entry.publicKey))
        return try KeyPair(publicKey: entry.publicKey, secretKey: secret)
    }

    /// Re-wraps A, B and C under `passcodeKey` (or the device key when `nil`) and records whether a passcode is set.
    mutating func rewrap(_ pairs: [ProtectionClass: KeyPair], passcodeKey: SecureBytes?, salt newSalt: [UInt8], cost: KDFCost, deviceWrapKey: SecureBytes) throws(StoreError) {
        for c in Self.passcodeClasses {
            classes[c]!.wrappedSecret = try Self.wrap(pairs[c]!, protectionClass: c, under: passcodeKey ?? deviceWrapKey)
        }
        passcodeSet = passcodeKey != nil
        salt = newSalt
        kdfCost = cost
        failedAttempts = 0
        lastFailure = nil
        lastWrongTag = nil
    }

    // MARK: Encoding

    /// The authenticated file contents.
    func encoded(macKey: SecureBytes) throws(StoreError) -> [UInt8] {
        var w = ByteWriter()
        w.raw(Self.magic)
        w.u8(Self.version)
        w.u64(kdfCost.opsLimit)
        w.u64(kdfCost.memLimit)
        w.block(salt)
        w.u8(passcodeSet ? 1 : 0)
        w.u32(UInt32(clamping: failedAttempts))
        w.date(lastFailure)
        w.u8(lastWrongTag == nil ? 0 : 1)
        w.raw(lastWrongTag ?? [UInt8](repeating: 0, count: Self.tagByteCount))
        for c in Self.order {
            let entry = classes[c]!
            w.u8(c.code)
            w.raw(entry.publicKey.bytes)
            w.block(entry.wrappedSecret)
        }
        let content = w.bytes
        let mac = try crypto { () throws(CryptoError) in
            try KeyedHash.hash(content, key: macKey, outputLength: Self.macByteCount)
        }
        return content + mac.withUnsafeBytes { Array($0) }
    }

    /// Verifies the MAC, then parses. Any failure names the file and never yields a partial keybag.
    static func decode(_ bytes: [UInt8], macKey: SecureBytes, file: String) throws(StoreError) -> Keybag {
        guard bytes.count >= magic.count + 1 + macByteCount else { throw .corrupt(file: file, reason: .truncated) }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .corrupt(file: file, reason: .badMagic) }
        let content = Array(bytes.dropLast(macByteCount))
        let expected = try crypto { () throws(CryptoError) in try KeyedHash.hash(content, key: macKey, outputLength: macByteCount) }
        let stored = Array(bytes.suffix(macByteCount))
        let authentic = expected.withUnsafeBytes { e in stored.withUnsafeBytes { s in Sodium.constantTimeEquals(e, s) } }
        guard authentic else { throw .corrupt(file: file, reason: .authenticationFailure) }
        let parsed: Result<Keybag, ByteReader.Failure> = content.withUnsafeBytes { buffer in
            Result { () throws(ByteReader.Failure) in try parse(buffer) }
        }
        switch parsed {
        case .success(let bag): return bag
        case .failure(.truncated): throw .corrupt(file: file, reason: .truncated)
        case .failure(.malformed): throw .corrupt(file: file, reason: .malformed)
        }
    }

    private static func parse(_ buffer: UnsafeRawBufferPointer) throws(ByteReader.Failure) -> Keybag {
        var r = ByteReader(buffer)
        _ = try r.raw(magic.count)
        guard try r.u8() == version else { throw .malformed }
        let cost = KDFCost(opsLimit: try r.u64(), memLimit: try r.u64())
        let salt = try r.block(limit: 64)
        guard salt.count == PasswordHash.saltByteCount else { throw .malformed }
        let passcodeFlag = try r.u8()
        guard passcodeFlag <= 1 else { throw .malformed }
        let failed = Int(try r.u32())
        let lastFailure = try r.date()
        let tagFlag = try r.u8()
        let tag = try r.raw(tagByteCount)
        guard tagFlag <= 1 else { throw .malformed }
        var entries: [ProtectionClass: ClassEntry] = [:]
        for c in order {
            guard try r.u8() == c.code else { throw .malformed }
            let publicKey: PublicKey
            do { publicKey = try PublicKey(bytes: try r.raw(PublicKey.byteCount)) } catch { throw .malformed }
            entries[c] = ClassEntry(publicKey: publicKey, wrappedSecret: try r.block(limit: 256))
        }
        guard r.isAtEnd else { throw .malformed }
        return Keybag(
            kdfCost: cost, salt: salt, passcodeSet: passcodeFlag == 1, failedAttempts: failed,
            lastFailure: lastFailure, lastWrongTag: tagFlag == 1 ? tag : nil, classes: entries)
    }

    // MARK: Files

    /// Reads and verifies `STATE/keybag`, or `nil` if there is none yet.
    static func load(stateDirectory: String, macKey: SecureBytes) throws(StoreError) -> Keybag? {
        let path = "\(stateDirectory)/\(fileName)"
        guard let bytes = try FileSystem.readFile(path, limit: 64 << 10) else { return nil }
        return try decode(bytes, macKey: macKey, file: path)
    }

    /// Replaces `STATE/keybag` atomically and durably: when this returns, the state survives a crash.
    func save(stateDirectory: String, macKey: SecureBytes) throws(StoreError) {
        try FileSystem.writeAtomically(directory: stateDirectory, name: Self.fileName, bytes: try encoded(macKey: macKey))
    }
}
