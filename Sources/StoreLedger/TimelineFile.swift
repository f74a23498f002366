import FoundationEssentials
import SecureMemory
import StoreFiles
import WidgetCrypto
import WidgetdPOSIX
import WidgetModel

/// The on-disk format of one widget's timeline (`timelines/<hex>.wtl`), version 4.
///
/// ```
/// header   "WDTL" | version u8 (4) | class code u8 | key generation u32 | wrap kind u8
///          | generation u64 | id length u8 | widget id
/// metadata block: XChaCha20-Poly1305(nonce ‖ ct ‖ tag) under the device's metadata subkey
/// body     wrap kind 0 (exchange):  ephemeral public key (32) | wrapped body key
///          wrap kind 1 (class key): wrapped body key
///          then block: XChaCha20-Poly1305(nonce ‖ ct ‖ tag) under the body key
/// wrapped body key: XChaCha20-Poly1305(nonce ‖ key ‖ tag) under the KEK (kind 0) or
///          the class wrap key (kind 1)
/// ```
///
/// The metadata section is class `none`, readable in every state; it is sealed under a
/// device subkey (always held, like class D's key) with a fresh random nonce: no
/// asymmetric operation. The body has a fresh random key per file, wrapped in one of
/// two ways, named by the header's wrap kind:
///
/// - **Kind 1, the class wrap key**, when the writer holds the class secret key of the
///   generation it writes (class D always; A, B and C while released): the wrap key is
///   derived from that secret (`ClassWrapKey`: keyed BLAKE2b, no scalar multiplication),
///   so wrapping and unwrapping cost a hash and an AEAD of 32 bytes.
/// - **Kind 0, an exchange**, when it does not (a class locked or purged): a
///   key-encryption key (`KeyEncryptionKey`) agreed by one ephemeral X25519 exchange
///   with the class public key, the files of one batch and class sharing it. Writing
///   needs no class secret key, so every class is writable in every state.
///
/// Every section (and the wrapped key) takes the whole header as associated data: a
/// file copied over another widget's, or with its version, class, generation or wrap
/// kind edited, fails to open; moved to another class, its KEK or wrap key differs too.
/// One file holds both sections so that a single `rename` replaces them together.
///
/// The key generation names the keybag's generation of class keys the body is sealed
/// to (`Keybag`; 0 for class D, which has one): class keys rotate at every passcode
/// change, and a file keeps the generation it was written under. Version 3 (still
/// read) is version 4 without the wrap kind, always an exchange; version 2 (still
/// read) is version 3 without the key generation: its files are sealed to generation 0.
///
/// Version 1 (still read: stores of the shipped version) sealed each section's fresh
/// key with `crypto_box_seal`, the metadata's to class D's public key:
/// `header | sealed key (80) | metadata block | sealed key (80) | body block`.
package enum TimelineFile {
    package static let magic = Array("WDTL".utf8)
    /// The version written.
    package static let version: UInt8 = 4
    /// The version before wrap kinds, still read (always an exchange).
    package static let version3: UInt8 = 3
    /// The version before key generations, still read.
    package static let version2: UInt8 = 2
    /// The shipped version's format, still read.
    package static let version1: UInt8 = 1
    package static let fileExtension = ".wtl"
    /// A class key generation's number: a file's header names the one its body is
    /// sealed to, and the keybag keeps each generation's keys (`Keybag.Generation`, the
    /// same type: the store, above both, hands one to the other).
    package typealias KeyGeneration = UInt32
    /// The key generation class D's one key pair is named by (`Keybag.classDGeneration`).
    package static let classDKeyGeneration: KeyGeneration = 0
    /// A hard ceiling on a file's size when reading, whatever the configured limits.
    package static let maximumFileBytes = 64 << 20
    /// A hard ceiling on the family name.
    package static let maximumFamilyBytes = 255

    private static let metadataLabel1 = Array("widgetd.v1.timeline.metadata".utf8)
    private static let bodyLabel1 = Array("widgetd.v1.timeline.body".utf8)
    private static let metadataLabel = Array("widgetd.v2.timeline.metadata".utf8)
    private static let bodyKeyLabel = Array("widgetd.v2.timeline.body-key".utf8)
    private static let bodyLabel = Array("widgetd.v2.timeline.body".utf8)
    /// A wrapped body key: nonce, key and tag.
    private static let wrappedKeyByteCount = AEAD.keyByteCount + AEAD.overhead

    /// How a file's body key is wrapped (the header's wrap kind, version 4).
    package enum WrapKind: UInt8 {
        /// Under a KEK agreed by an ephemeral X25519 exchange with the class public key.
        case exchange = 0
        /// Under the class wrap key, derived from the class secret key (`ClassWrapKey`).
        case classKey = 1
    }

    /// What a writer wraps a body key with.
    package enum BodyWrap {
        /// A KEK agreed with the class public key (wrap kind 0).
        case exchange(KeyEncryptionKey)
        /// The class wrap key (wrap kind 1); the caller's, not zeroed here.
        case classKey(SecureBytes)

        package var kind: WrapKind {
            switch self {
            case .exchange: .exchange
            case .classKey: .classKey
            }
        }
    }

    /// The authenticated header.
    package struct Header: Equatable {
        package let protectionClass: ProtectionClass
        /// The keybag generation of the class key the body is sealed to.
        package var keyGeneration: UInt32 = 0
        package let generation: UInt64
        package let widget: WidgetID
        package var version: UInt8 = TimelineFile.version
        /// How the body key is wrapped (always `.exchange` before version 4).
        package var wrapKind: WrapKind = .exchange

        package var encoded: [UInt8] {
            var w = ByteWriter()
            w.raw(TimelineFile.magic)
            w.u8(version)
            w.u8(protectionClass.code)
            if version >= TimelineFile.version3 { w.u32(keyGeneration) }
            if version >= TimelineFile.version { w.u8(wrapKind.rawValue) }
            w.u64(generation)
            let id = Array(widget.description.utf8)
            w.u8(UInt8(id.count))
            w.raw(id)
            return w.bytes
        }
    }

    /// How a file's section keys are stored, by version.
    package enum SectionKeys {
        /// Version 1: both keys sealed boxes (the metadata's to class D).
        case version1(metadataKey: [UInt8], bodyKey: [UInt8])
        /// Versions 2 and 3, and version 4's wrap kind 0: the body key wrapped under the
        /// KEK that `ephemeralKey` agreed.
        case exchange(ephemeralKey: PublicKey, wrappedBodyKey: [UInt8])
        /// Version 4's wrap kind 1: the body key wrapped under the class wrap key.
        case classWrap(wrappedBodyKey: [UInt8])
    }

    /// A parsed, not yet decrypted file.
    package struct Sealed {
        package let header: Header
        package let headerBytes: [UInt8]
        package let keys: SectionKeys
        package let metadata: [UInt8]
        package let body: [UInt8]
    }

    /// A locked buffer for a file's body key, allocated once by a writer and refilled
    /// from the CSPRNG for every file, then zeroed: a `sodium_malloc` and `sodium_free`
    /// per key cost about twenty system calls per write.
    ///
    /// Not thread-safe: one writer (thread) per scratch.
    package final class KeyScratch: @unchecked Sendable {
        package let bodyKey: SecureBytes
        /// One draw from the CSPRNG per file: the body key, then its three seals'
        /// nonces. Each separate draw is a `getrandom` call; one draw makes one.
        private let draw: SecureBytes
        /// How many nonces a file's seals take (metadata, body key, body).
        package static let noncesPerFile = 3

        package init() throws(SecureMemoryError) {
            bodyKey = try SecureBytes.zeroed(count: AEAD.keyByteCount)
            draw = try SecureBytes.zeroed(count: AEAD.keyByteCount + Self.noncesPerFile * AEAD.nonceByteCount)
        }

        /// Fills `bodyKey` with fresh random bytes and returns the file's nonces, each
        /// its own fresh bytes, from one draw (zeroed again before this returns).
        package func refill() -> Nonces {
            draw.refillRandom()
            defer { draw.zeroInPlace() }
            return draw.withUnsafeBytes { drawn in
                bodyKey.withUnsafeMutableBytes { key in
                    key.copyMemory(from: UnsafeRawBufferPointer(rebasing: drawn.prefix(AEAD.keyByteCount)))
                }
                return Nonces(UnsafeRawBufferPointer(rebasing: drawn[AEAD.keyByteCount...]))
            }
        }

        /// A file's nonces (metadata, body key, body), held inline: no array per nonce.
        /// Not secret: each is written in the clear before its ciphertext.
        package struct Nonces {
            private var bytes: (SIMD32<UInt8>, SIMD32<UInt8>, SIMD16<UInt8>) = (.zero, .zero, .zero)

            package init(_ drawn: UnsafeRawBufferPointer) {
                precondition(drawn.count == noncesPerFile * AEAD.nonceByteCount && MemoryLayout.size(ofValue: bytes) >= drawn.count)
                withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: drawn) }
            }

            /// Runs `body` with nonce number `index`.
            package func withNonce<R, E: Error>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
                precondition(index >= 0 && index < noncesPerFile)
                var copy = bytes
                return try withUnsafeBytes(of: &copy) { (all) throws(E) in
                    try body(UnsafeRawBufferPointer(rebasing: all[(index * AEAD.nonceByteCount)..<((index + 1) * AEAD.nonceByteCount)]))
                }
            }
        }

        /// The scratches of every writer thread, each taken by one thread at a time.
        /// They hold only zeroes between uses; a handful exist (one per concurrent writer).
        package static let pool = Pool()

        /// Hands out scratches, making a new one only when all are in use.
        package final class Pool: @unchecked Sendable {
            private let lock = ThreadLock()
            private var idle: [KeyScratch] = []

            /// Runs `body` with a scratch no other thread uses meanwhile.
            package func withScratch<R>(_ body: (KeyScratch) throws(FileError) -> R) throws(FileError) -> R {
                let taken = lock.withLock { idle.popLast() }
                let scratch: KeyScratch
                if let taken {
                    scratch = taken
                } else {
                    do { scratch = try KeyScratch() } catch { throw FileError(error) }
                }
                defer { lock.withLock { idle.append(scratch) } }
                return try body(scratch)
            }
        }
    }

    /// The size of the file `encode` builds for `metadata` and a body of
    /// `bodyCount` bytes, computed without sealing anything: what a write will take on
    /// disk, for the providers' quotas (a test compares it with `encode`'s output).
    package static func encodedCount(_ metadata: TimelineMetadata, bodyCount: Int, wrap: WrapKind) -> Int {
        let header = Header(
            protectionClass: metadata.protectionClass, keyGeneration: metadata.keyGeneration, generation: metadata.generation,
            widget: metadata.widget, wrapKind: wrap)
        return header.encoded.count + 4 + encodeMetadata(metadata).count + AEAD.overhead + bodyKeyByteCount(wrap)
            + 4 + bodyCount + AEAD.overhead
    }

    /// What stands between the metadata block and the body block.
    private static func bodyKeyByteCount(_ wrap: WrapKind) -> Int {
        switch wrap {
        case .exchange: PublicKey.byteCount + wrappedKeyByteCount
        case .classKey: wrappedKeyByteCount
        }
    }

    /// Builds a file (the current version). `wrap` is what wraps the body key: a KEK
    /// agreed with the class public key (no class secret needed; it may serve every
    /// file of a batch of that class) or the class wrap key. `metadataKey` is the
    /// device's metadata subkey. `keys` is a reused buffer for the body key, drawn
    /// with the seals' nonces in one CSPRNG call (zeroed again before this returns);
    /// nil allocates a fresh one. `version` is the current
    /// one but for tests that write files as versions 2 and 3 did (an exchange only).
    package static func encode(
        _ metadata: TimelineMetadata, body: SecureBytes, wrap: BodyWrap, metadataKey: SecureBytes,
        keys: KeyScratch? = nil, version: UInt8 = TimelineFile.version
    ) throws(CryptoError) -> [UInt8] {
        precondition(version == TimelineFile.version || wrap.kind == .exchange, "only version 4 has a class wrap")
        let header = Header(
            protectionClass: metadata.protectionClass, keyGeneration: metadata.keyGeneration, generation: metadata.generation,
            widget: metadata.widget, version: version, wrapKind: wrap.kind)
        let headerBytes = header.encoded
        let bodyKey: SecureBytes
        // Without a scratch, each seal draws its own nonce.
        var nonces: KeyScratch.Nonces?
        if let keys {
            bodyKey = keys.bodyKey
            nonces = keys.refill()
        } else {
            bodyKey = try AEAD.generateKey()
        }
        defer { bodyKey.zeroInPlace() }
        /// Seals with nonce number `index` of the draw, or a fresh one.
        func seal(_ plaintext: UnsafeRawBufferPointer, _ key: SecureBytes, _ index: Int, _ associatedData: [UInt8])
            throws(CryptoError) -> [UInt8]
        {
            guard let nonces else { return try AEAD.seal(plaintext, key: key, associatedData: associatedData) }
            return try nonces.withNonce(index) { (nonce) throws(CryptoError) in
                try AEAD.seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
            }
        }
        func seal(_ plaintext: SecureBytes, _ key: SecureBytes, _ index: Int, _ associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
            try plaintext.withUnsafeBytes { (bytes) throws(CryptoError) in try seal(bytes, key, index, associatedData) }
        }
        let sealedMetadata = try encodeMetadata(metadata).withBytes { (bytes) throws(CryptoError) in
            try seal(bytes, metadataKey, 0, metadataLabel + headerBytes)
        }
        var w = ByteWriter(
            reservingCapacity: headerBytes.count + 4 + sealedMetadata.count + bodyKeyByteCount(wrap.kind) + 4 + body.count
                + AEAD.overhead)
        w.raw(headerBytes)
        w.block(sealedMetadata)
        switch wrap {
        case .exchange(let kek):
            w.raw(kek.ephemeralPublicKey.bytes)
            w.raw(try seal(bodyKey, kek.key, 1, bodyKeyLabel + headerBytes))
        case .classKey(let wrapKey):
            w.raw(try seal(bodyKey, wrapKey, 1, bodyKeyLabel + headerBytes))
        }
        w.block(try seal(body, bodyKey, 2, bodyLabel + headerBytes))
        return w.bytes
    }

    /// Builds a version-1 file, as the shipped version wrote it (four X25519 operations).
    /// Not used by the store: kept so that tests prove such files still open.
    package static func encodeVersion1(
        _ metadata: TimelineMetadata, body: SecureBytes, classPublicKey: PublicKey, classDPublicKey: PublicKey
    ) throws(CryptoError) -> [UInt8] {
        let header = Header(
            protectionClass: metadata.protectionClass, generation: metadata.generation, widget: metadata.widget,
            version: version1)
        let headerBytes = header.encoded
        let metadataKey = try AEAD.generateKey()
        let bodyKey = try AEAD.generateKey()
        defer {
            metadataKey.zeroInPlace()
            bodyKey.zeroInPlace()
        }
        var w = ByteWriter()
        w.raw(headerBytes)
        w.raw(try SealedBox.seal(metadataKey, to: classDPublicKey))
        w.block(try AEAD.seal(encodeMetadata(metadata), key: metadataKey, associatedData: metadataLabel1 + headerBytes))
        w.raw(try SealedBox.seal(bodyKey, to: classPublicKey))
        w.block(try AEAD.seal(body, key: bodyKey, associatedData: bodyLabel1 + headerBytes))
        return w.bytes
    }

    /// The generation a sealed file's header states, or `nil` if it does not parse.
    /// Unauthenticated: for bytes the store itself just sealed (the catalog's record).
    package static func generation(of bytes: [UInt8]) -> UInt64? {
        // magic | version | class | key generation (versions 3, 4) | wrap kind (version 4) | generation u64
        guard bytes.count >= 19, bytes.starts(with: magic) else { return nil }
        let at: Int
        switch bytes[4] {
        case version: at = 11
        case version3: at = 10
        case version2, version1: at = 6
        default: return nil
        }
        return bytes[at..<at + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Parses the framing and checks the header belongs to `expected` (when given). Decrypts nothing.
    package static func parse(_ bytes: [UInt8], expected: WidgetID?, file: String) throws(FileError) -> Sealed {
        guard bytes.count >= magic.count else { throw .corrupt(file: file, reason: .truncated) }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .corrupt(file: file, reason: .badMagic) }
        let parsed: Result<Sealed, FileError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileError) in try parseFraming(buffer, file: file) }
        }
        let sealed = try parsed.get()
        guard expected == nil || sealed.header.widget == expected else { throw .corrupt(file: file, reason: .wrongWidget) }
        return sealed
    }

    private static func parseFraming(_ buffer: UnsafeRawBufferPointer, file: String) throws(FileError) -> Sealed {
        var r = ByteReader(buffer)
        do {
            _ = try r.raw(magic.count)
            let fileVersion = try r.u8()
            guard fileVersion == version || fileVersion == version3 || fileVersion == version2 || fileVersion == version1 else {
                throw FileError.corrupt(file: file, reason: .unsupportedVersion)
            }
            guard let c = ProtectionClass(code: try r.u8()) else { throw FileError.corrupt(file: file, reason: .wrongClass) }
            let keyGeneration = fileVersion >= version3 ? try r.u32() : 0
            guard c != .none || keyGeneration == Self.classDKeyGeneration else {
                throw FileError.corrupt(file: file, reason: .malformed)
            }
            var wrapKind = WrapKind.exchange
            if fileVersion == version {
                guard let kind = WrapKind(rawValue: try r.u8()) else { throw FileError.corrupt(file: file, reason: .malformed) }
                wrapKind = kind
            }
            let generation = try r.u64()
            let idBytes = try r.raw(Int(try r.u8()))
            guard let id = String(validating: idBytes, as: UTF8.self), let widget = try? WidgetID(id) else {
                throw FileError.corrupt(file: file, reason: .malformed)
            }
            let header = Header(
                protectionClass: c, keyGeneration: keyGeneration, generation: generation, widget: widget, version: fileVersion,
                wrapKind: wrapKind)
            let headerBytes = Array(buffer[0..<r.offset])
            let keys: SectionKeys
            let metadata: [UInt8]
            if fileVersion == version1 {
                let sealedKeyBytes = AEAD.keyByteCount + SealedBox.overhead
                let metadataKey = try r.raw(sealedKeyBytes)
                metadata = try r.block(limit: maximumFileBytes)
                keys = .version1(metadataKey: metadataKey, bodyKey: try r.raw(sealedKeyBytes))
            } else {
                metadata = try r.block(limit: maximumFileBytes)
                switch wrapKind {
                case .exchange:
                    guard let ephemeral = try? PublicKey(bytes: try r.raw(PublicKey.byteCount)) else {
                        throw FileError.corrupt(file: file, reason: .malformed)
                    }
                    keys = .exchange(ephemeralKey: ephemeral, wrappedBodyKey: try r.raw(wrappedKeyByteCount))
                case .classKey:
                    keys = .classWrap(wrappedBodyKey: try r.raw(wrappedKeyByteCount))
                }
            }
            let body = try r.block(limit: maximumFileBytes)
            guard r.isAtEnd else { throw FileError.corrupt(file: file, reason: .malformed) }
            return Sealed(header: header, headerBytes: headerBytes, keys: keys, metadata: metadata, body: body)
        } catch let failure as ByteReader.Failure {
            throw .corrupt(file: file, reason: failure == .truncated ? .truncated : .malformed)
        } catch let error as FileError {
            throw error
        } catch {
            throw .corrupt(file: file, reason: .malformed)
        }
    }

    /// Decrypts and checks the class-`none` section: with the device's metadata subkey
    /// (versions 2 to 4) or class D's key pair (version 1; without one, such a file
    /// is refused as unreadable).
    package static func openMetadata(
        _ sealed: Sealed, metadataKey: SecureBytes, classD: KeyPair?, file: String
    ) throws(FileError) -> TimelineMetadata {
        if case .version1 = sealed.keys, classD == nil { throw .corrupt(file: file, reason: .unsupportedVersion) }
        let plaintext: SecureBytes
        do {
            switch sealed.keys {
            case .version1(let sealedKey, _):
                let key = try SealedBox.open(sealedKey, keyPair: classD!)
                defer { key.zeroInPlace() }
                plaintext = try AEAD.open(sealed.metadata, key: key, associatedData: metadataLabel1 + sealed.headerBytes)
            case .exchange, .classWrap:
                plaintext = try AEAD.open(sealed.metadata, key: metadataKey, associatedData: metadataLabel + sealed.headerBytes)
            }
        } catch {
            throw FileError.reading(file, error)
        }
        let decoded: Result<TimelineMetadata, ByteReader.Failure> = plaintext.withUnsafeBytes { buffer in
            Result { () throws(ByteReader.Failure) in try decodeMetadata(buffer, widget: sealed.header.widget) }
        }
        guard case .success(var metadata) = decoded else { throw .corrupt(file: file, reason: .malformed) }
        metadata.keyGeneration = sealed.header.keyGeneration
        guard metadata.protectionClass == sealed.header.protectionClass else { throw .corrupt(file: file, reason: .wrongClass) }
        guard metadata.generation == sealed.header.generation else { throw .corrupt(file: file, reason: .malformed) }
        return metadata
    }

    /// Decrypts the body into secure memory with the class key pair (of the file's
    /// class and key generation): one X25519 operation for an exchange (or a version-1
    /// sealed box), a keyed hash for a class wrap. With `slab`, the body is carved out of
    /// it (many bodies opened together and kept).
    package static func openBody(_ sealed: Sealed, classKey: KeyPair, file: String, in slab: SecureSlab? = nil) throws(FileError) -> SecureBytes {
        do {
            switch sealed.keys {
            case .version1(_, let sealedKey):
                let key = try SealedBox.open(sealedKey, keyPair: classKey)
                defer { key.zeroInPlace() }
                return try AEAD.open(sealed.body, key: key, associatedData: bodyLabel1 + sealed.headerBytes, in: slab)
            case .exchange(let ephemeral, let wrapped):
                let kek = try KeyEncryptionKey.recover(ephemeral: ephemeral, keyPair: classKey)
                defer { kek.zeroInPlace() }
                let key = try AEAD.open(wrapped, key: kek, associatedData: bodyKeyLabel + sealed.headerBytes)
                defer { key.zeroInPlace() }
                return try AEAD.open(sealed.body, key: key, associatedData: bodyLabel + sealed.headerBytes, in: slab)
            case .classWrap(let wrapped):
                let wrapKey = try ClassWrapKey.derive(
                    from: classKey, classCode: sealed.header.protectionClass.code, generation: sealed.header.keyGeneration)
                defer { wrapKey.zeroInPlace() }
                let key = try AEAD.open(wrapped, key: wrapKey, associatedData: bodyKeyLabel + sealed.headerBytes)
                defer { key.zeroInPlace() }
                return try AEAD.open(sealed.body, key: key, associatedData: bodyLabel + sealed.headerBytes, in: slab)
            }
        } catch {
            throw FileError.reading(file, error)
        }
    }

    // The metadata plaintext: class u8, generation u64, family (flag + block), reloadDue, placeholder (flag + block).
    private static func encodeMetadata(_ m: TimelineMetadata) -> [UInt8] {
        var w = ByteWriter()
        w.u8(m.protectionClass.code)
        w.u64(m.generation)
        w.u8(m.family == nil ? 0 : 1)
        w.block(Array((m.family ?? "").utf8))
        w.date(m.reloadDue)
        w.u8(m.placeholder == nil ? 0 : 1)
        w.block(m.placeholder ?? [])
        return w.bytes
    }

    private static func decodeMetadata(_ buffer: UnsafeRawBufferPointer, widget: WidgetID) throws(ByteReader.Failure) -> TimelineMetadata {
        var r = ByteReader(buffer)
        guard let c = ProtectionClass(code: try r.u8()) else { throw .malformed }
        let generation = try r.u64()
        let hasFamily = try r.u8()
        let familyBytes = try r.block(limit: maximumFamilyBytes)
        let reloadDue = try r.date()
        let hasPlaceholder = try r.u8()
        let placeholder = try r.block(limit: maximumFileBytes)
        guard r.isAtEnd, hasFamily <= 1, hasPlaceholder <= 1,
            let family = String(validating: familyBytes, as: UTF8.self)
        else { throw .malformed }
        return TimelineMetadata(
            widget: widget, protectionClass: c, family: hasFamily == 1 ? family : nil, generation: generation,
            reloadDue: reloadDue, placeholder: hasPlaceholder == 1 ? placeholder : nil)
    }
}
