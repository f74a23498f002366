import FoundationEssentials
import SecureMemory
import StoreAnchor
import StoreFiles
import WidgetCrypto
import WidgetModel

/// The keybag: one authenticated file holding everything needed to release class keys.
///
/// It holds the Argon2id cost and salt, the failed-attempt state, class D's key pair
/// and one or more **key generations** of the A, B and C key pairs (DESIGN §9): the
/// public keys, and the secrets wrapped (XChaCha20-Poly1305) under the passcode key
/// while a passcode is set, else under a device subkey, like class D's always.
///
/// Every passcode set, change or removal makes a new generation (`rotate`): new writes
/// are sealed to it, and the older generations stay, wrapped under the new key, only
/// to read the files still sealed to them; one that no file uses is dropped
/// (`dropGenerations`). So a keybag restored from before a change holds no key of any
/// file written after it, while the change itself re-wraps a few secrets per
/// generation and nothing per timeline. Class D is not rotated: it is wrapped under the
/// device key in every keybag, so a new pair would keep nothing from a restored one.
///
/// The whole file is authenticated with keyed BLAKE2b under a device subkey: a
/// tampered keybag (say, a reset failure counter) is a typed error, never a reset.
///
/// In tpm2 mode it also holds the passcode tangle's blob (`tangleBlob`): the sealed
/// secret a `PasscodeVerifier` releases only to the right passcode, without which the
/// class secrets do not unwrap.
///
/// Layout (little-endian), version 3: `"WKBG"`, version, opslimit u64, memlimit u64,
/// salt block, passcodeSet u8, failedAttempts u32, lastFailure date, wrong-passcode tag
/// (presence u8 + 32 bytes), class D (code u8, public key (32), wrapped secret block),
/// generation count u16, then per generation, oldest first: number u32 and per class
/// (A, B, C) code u8, public key (32), wrapped secret block; then the tangle blob
/// (presence u8 + block); the rollback anchors (keybag u64, catalog u64: `AnchorValues`,
/// zero in software mode); the source's binding (block: `DeviceKeySource.keybagBinding`,
/// the TPM's NV indices, empty in software mode); and a 32-byte MAC over everything
/// before it. Version 3 (read as binding nothing; written as version 4 at its next
/// change) ends after the anchors. Version 2 (read,
/// as not anchored; written as version 3 at the next change) ends after the generations:
/// no tangle, no anchors. Version 1 (read, and rewritten at open) had no generations:
/// after the tag, per class (A, B, C, D) code, public key and wrapped secret; it reads
/// as generation 0.
package struct Keybag {
    package static let fileName = "keybag"
    package static let magic = Array("WKBG".utf8)
    /// The version written.
    package static let version: UInt8 = 4
    /// The version before the source's binding, still read.
    package static let version3: UInt8 = 3
    /// The version before the tangle blob and the rollback anchors, still read.
    package static let version2: UInt8 = 2
    /// The version before key generations, still read.
    package static let version1: UInt8 = 1
    package static let macByteCount = 32
    package static let tagByteCount = 32
    /// The largest keybag read: a few hundred bytes per generation kept.
    package static let maximumFileBytes = 1 << 20
    /// The largest tangle blob read (a TPM's is a few hundred bytes).
    private static let maximumTangleBlobBytes = 4096

    /// A key generation's number; a file's header names the one it is sealed to.
    package typealias Generation = UInt32
    /// The generation class D's one key pair is named by.
    package static let classDGeneration: Generation = 0

    /// One class's key material as stored.
    package struct ClassEntry {
        package let publicKey: PublicKey
        package var wrappedSecret: [UInt8]
    }

    /// One generation of the A, B and C key pairs.
    package struct KeyGeneration {
        package let number: Generation
        package var classes: [ProtectionClass: ClassEntry]
    }

    package var kdfCost: KDFCost
    package var salt: [UInt8]
    package var passcodeSet: Bool
    package var failedAttempts: Int
    package var lastFailure: Date?
    /// Keyed hash of the last wrong passcode key (not the passcode), so a repeat is not counted twice.
    package var lastWrongTag: [UInt8]?
    package var classD: ClassEntry
    /// The passcode tangle's blob (`PasscodeVerifier.enroll`) while a passcode set with a
    /// verifier is in force; `nil` in software mode and without a passcode.
    package var tangleBlob: [UInt8]? = nil
    /// Oldest first; never empty, the last is the one new writes use.
    package private(set) var generations: [KeyGeneration]
    /// The rollback counter's values this keybag was saved with (`RollbackAnchor`).
    package var anchors = AnchorValues.none
    /// Where the device key source keeps state outside the directory
    /// (`DeviceKeySource.keybagBinding`); empty for none and in files before version 4.
    package var binding: [UInt8] = []
    /// The version the file was read in (`version` for a new keybag).
    package private(set) var readVersion = Keybag.version

    /// Classes whose secret is wrapped under the passcode key while a passcode is set, and that rotate.
    package static let passcodeClasses: [ProtectionClass] = [.complete, .completeUnlessOpen, .completeUntilFirstUserAuthentication]

    /// A new keybag with fresh class keys (generation 0) and no passcode.
    package static func create(cost: KDFCost, deviceWrapKey: SecureBytes) throws(KeyError) -> Keybag {
        let d = try KeyError.crypto { () throws(CryptoError) in try KeyPair.generate() }
        let (first, _) = try makeGeneration(0, under: deviceWrapKey)
        let salt = try KeyError.crypto { () throws(CryptoError) in try Sodium.randomBytes(count: PasswordHash.saltByteCount) }
        return Keybag(
            kdfCost: cost, salt: salt, passcodeSet: false, failedAttempts: 0, lastFailure: nil, lastWrongTag: nil,
            classD: ClassEntry(publicKey: d.publicKey, wrappedSecret: try wrap(d, protectionClass: .none, under: deviceWrapKey)),
            generations: [first])
    }

    /// Fresh A, B and C key pairs as generation `number`, wrapped under `key`.
    private static func makeGeneration(
        _ number: Generation, under key: SecureBytes
    ) throws(KeyError) -> (KeyGeneration, [ProtectionClass: KeyPair]) {
        var pairs: [ProtectionClass: KeyPair] = [:]
        var entries: [ProtectionClass: ClassEntry] = [:]
        for c in passcodeClasses {
            let pair = try KeyError.crypto { () throws(CryptoError) in try KeyPair.generate() }
            pairs[c] = pair
            entries[c] = ClassEntry(publicKey: pair.publicKey, wrappedSecret: try wrap(pair, protectionClass: c, under: key))
        }
        return (KeyGeneration(number: number, classes: entries), pairs)
    }

    /// The generation new writes are sealed to.
    private var newestGeneration: Generation { generations.last!.number }

    /// The numbers of every generation held.
    package var generationNumbers: [Generation] { generations.map(\.number) }

    /// The generation a new file of class `c` is sealed to (class D has one key).
    package func writeGeneration(_ c: ProtectionClass) -> Generation { c == .none ? Self.classDGeneration : newestGeneration }

    /// The public key new files of class `c` are sealed to (writes need nothing else).
    package func publicKey(_ c: ProtectionClass) -> PublicKey {
        c == .none ? classD.publicKey : generations.last!.classes[c]!.publicKey
    }

    private static func wrapAD(_ c: ProtectionClass, _ publicKey: PublicKey) -> [UInt8] {
        // The public key binds the secret to its generation: each generation's keys are new.
        Array("widgetd.v1.class-secret".utf8) + [c.code] + publicKey.bytes
    }

    private static func wrap(_ pair: KeyPair, protectionClass c: ProtectionClass, under key: SecureBytes) throws(KeyError) -> [UInt8] {
        try KeyError.crypto { () throws(CryptoError) in
            try AEAD.seal(pair.secretKey, key: key, associatedData: wrapAD(c, pair.publicKey))
        }
    }

    private static func unwrap(_ entry: ClassEntry, _ c: ProtectionClass, with key: SecureBytes) throws(CryptoError) -> KeyPair {
        let secret = try AEAD.open(entry.wrappedSecret, key: key, associatedData: wrapAD(c, entry.publicKey))
        return try KeyPair(publicKey: entry.publicKey, secretKey: secret)
    }

    /// Unwraps class D's secret (always under the device subkey).
    package func unwrapClassD(with deviceWrapKey: SecureBytes) throws(CryptoError) -> KeyPair {
        try Self.unwrap(classD, .none, with: deviceWrapKey)
    }

    /// Unwraps the newest generation's class-A secret: whether `key` is the wrapping key.
    package func unwrapNewestClassA(with key: SecureBytes) throws(CryptoError) -> KeyPair {
        try Self.unwrap(generations.last!.classes[.complete]!, .complete, with: key)
    }

    /// Unwraps every generation of A, B and C; `CryptoError.authenticationFailure` if
    /// `key` is not the wrapping key.
    package func unwrapAll(with key: SecureBytes) throws(CryptoError) -> [ProtectionClass: [Generation: KeyPair]] {
        var pairs: [ProtectionClass: [Generation: KeyPair]] = [:]
        for generation in generations.reversed() {
            for c in Self.passcodeClasses {
                pairs[c, default: [:]][generation.number] = try Self.unwrap(generation.classes[c]!, c, with: key)
            }
        }
        return pairs
    }

    /// Makes a new generation and re-wraps every generation's A, B and C under
    /// `passcodeKey` (or the device key when `nil`); records whether a passcode is set
    /// and clears the failure state. `held` must hold every generation's pairs. Returns
    /// the new generation's pairs.
    package mutating func rotate(
        held: [ProtectionClass: [Generation: KeyPair]], passcodeKey: SecureBytes?, salt newSalt: [UInt8], cost: KDFCost,
        deviceWrapKey: SecureBytes
    ) throws(KeyError) -> (Generation, [ProtectionClass: KeyPair]) {
        let key = passcodeKey ?? deviceWrapKey
        for index in generations.indices {
            let number = generations[index].number
            for c in Self.passcodeClasses {
                guard let pair = held[c]?[number] else {
                    preconditionFailure("a rotation holds every generation's keys")
                }
                generations[index].classes[c]!.wrappedSecret = try Self.wrap(pair, protectionClass: c, under: key)
            }
        }
        let number = newestGeneration &+ 1
        let (fresh, pairs) = try Self.makeGeneration(number, under: key)
        generations.append(fresh)
        passcodeSet = passcodeKey != nil
        salt = newSalt
        kdfCost = cost
        failedAttempts = 0
        lastFailure = nil
        lastWrongTag = nil
        return (number, pairs)
    }

    /// Drops every generation but the newest that is not in `inUse`; returns those dropped.
    package mutating func dropGenerations(notIn inUse: Set<Generation>) -> [Generation] {
        let newest = newestGeneration
        let dropped = generations.filter { $0.number != newest && !inUse.contains($0.number) }.map(\.number)
        generations.removeAll { dropped.contains($0.number) }
        return dropped
    }

    // MARK: Encoding

    /// The authenticated file contents (always the current version).
    package func encoded(macKey: SecureBytes) throws(FileError) -> [UInt8] {
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
        Self.write(classD, .none, to: &w)
        w.u16(UInt16(generations.count))
        for generation in generations {
            w.u32(generation.number)
            for c in Self.passcodeClasses { Self.write(generation.classes[c]!, c, to: &w) }
        }
        w.u8(tangleBlob == nil ? 0 : 1)
        w.block(tangleBlob ?? [])
        w.u64(anchors.keybag)
        w.u64(anchors.catalog)
        w.block(binding)
        let content = w.bytes
        let mac = try FileError.crypto { () throws(CryptoError) in
            try KeyedHash.hash(content, key: macKey, outputLength: Self.macByteCount)
        }
        return content + mac.withUnsafeBytes { Array($0) }
    }

    private static func write(_ entry: ClassEntry, _ c: ProtectionClass, to w: inout ByteWriter) {
        w.u8(c.code)
        w.raw(entry.publicKey.bytes)
        w.block(entry.wrappedSecret)
    }

    /// Verifies the MAC, then parses. Any failure names the file and never yields a partial keybag.
    package static func decode(_ bytes: [UInt8], macKey: SecureBytes, file: String) throws(KeyError) -> Keybag {
        guard bytes.count >= magic.count + 1 + macByteCount else { throw .file(.corrupt(file: file, reason: .truncated)) }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .file(.corrupt(file: file, reason: .badMagic)) }
        let content = Array(bytes.dropLast(macByteCount))
        let expected = try KeyError.crypto { () throws(CryptoError) in try KeyedHash.hash(content, key: macKey, outputLength: macByteCount) }
        let stored = Array(bytes.suffix(macByteCount))
        let authentic = expected.withUnsafeBytes { e in stored.withUnsafeBytes { s in Sodium.constantTimeEquals(e, s) } }
        guard authentic else { throw .file(.corrupt(file: file, reason: .authenticationFailure)) }
        let parsed: Result<Keybag, ByteReader.Failure> = content.withUnsafeBytes { buffer in
            Result { () throws(ByteReader.Failure) in try parse(buffer) }
        }
        switch parsed {
        case .success(let bag): return bag
        case .failure(.truncated): throw .file(.corrupt(file: file, reason: .truncated))
        case .failure(.malformed): throw .file(.corrupt(file: file, reason: .malformed))
        }
    }

    private static func parse(_ buffer: UnsafeRawBufferPointer) throws(ByteReader.Failure) -> Keybag {
        var r = ByteReader(buffer)
        _ = try r.raw(magic.count)
        let fileVersion = try r.u8()
        guard [version, version3, version2, version1].contains(fileVersion) else { throw .malformed }
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
        let classD: ClassEntry
        var generations: [KeyGeneration] = []
        if fileVersion == version1 {
            var entries: [ProtectionClass: ClassEntry] = [:]
            for c in passcodeClasses { entries[c] = try readEntry(c, &r) }
            classD = try readEntry(.none, &r)
            generations = [KeyGeneration(number: 0, classes: entries)]
        } else {
            classD = try readEntry(.none, &r)
            let count = Int(try r.u16())
            guard count > 0 else { throw .malformed }
            for _ in 0..<count {
                let number = try r.u32()
                // Oldest first, each number once.
                guard generations.last.map({ $0.number < number }) ?? true else { throw .malformed }
                var entries: [ProtectionClass: ClassEntry] = [:]
                for c in passcodeClasses { entries[c] = try readEntry(c, &r) }
                generations.append(KeyGeneration(number: number, classes: entries))
            }
        }
        var tangleBlob: [UInt8]?
        var anchors = AnchorValues.none
        var binding: [UInt8] = []
        if fileVersion >= version3 {
            let tangleFlag = try r.u8()
            let blob = try r.block(limit: maximumTangleBlobBytes)
            guard tangleFlag <= 1, tangleFlag == 1 || blob.isEmpty else { throw .malformed }
            tangleBlob = tangleFlag == 1 ? blob : nil
            anchors = AnchorValues(keybag: try r.u64(), catalog: try r.u64())
        }
        if fileVersion >= version { binding = try r.block(limit: 64) }
        guard r.isAtEnd else { throw .malformed }
        var bag = Keybag(
            kdfCost: cost, salt: salt, passcodeSet: passcodeFlag == 1, failedAttempts: failed,
            lastFailure: lastFailure, lastWrongTag: tagFlag == 1 ? tag : nil, classD: classD, tangleBlob: tangleBlob,
            generations: generations)
        bag.readVersion = fileVersion
        bag.anchors = anchors
        bag.binding = binding
        return bag
    }

    private static func readEntry(_ c: ProtectionClass, _ r: inout ByteReader) throws(ByteReader.Failure) -> ClassEntry {
        guard try r.u8() == c.code else { throw .malformed }
        let publicKey: PublicKey
        do { publicKey = try PublicKey(bytes: try r.raw(PublicKey.byteCount)) } catch { throw .malformed }
        return ClassEntry(publicKey: publicKey, wrappedSecret: try r.block(limit: 256))
    }

    // MARK: Files

    /// Reads and verifies `STATE/keybag`, or `nil` if there is none yet.
    package static func load(stateDirectory: String, macKey: SecureBytes) throws(KeyError) -> Keybag? {
        let path = "\(stateDirectory)/\(fileName)"
        guard let bytes = try throughFiles({ () throws(FileError) in try FileSystem.readFile(path, limit: maximumFileBytes) })
        else { return nil }
        return try decode(bytes, macKey: macKey, file: path)
    }

    /// Replaces `STATE/keybag` atomically and durably: when this returns, the state survives a crash.
    package func save(stateDirectory: String, macKey: SecureBytes) throws(KeyError) {
        try throughFiles { () throws(FileError) in try write(stateDirectory: stateDirectory, macKey: macKey) }
    }

    /// `save`, its failures the file system's (the ledger part's): for a keybag saved
    /// together with the catalog (`GenerationLedger.saveAnchored(withKeybag:)`).
    package func write(stateDirectory: String, macKey: SecureBytes) throws(FileError) {
        let bytes = try encoded(macKey: macKey)
        try FileSystem.writeAtomically(directory: stateDirectory, name: Self.fileName, bytes: bytes)
    }
}
