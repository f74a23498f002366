import Foundation
import WidgetCrypto
import WidgetModel

/// The on-disk format of one widget's timeline (`timelines/<hex>.wtl`).
///
/// ```
/// header   "WDTL" | version u8 | class code u8 | generation u64 | id length u8 | widget id
/// metadata sealed key (80) | block: XChaCha20-Poly1305(nonce ‖ ct ‖ tag)   — sealed to class D
/// body     sealed key (80) | block: XChaCha20-Poly1305(nonce ‖ ct ‖ tag)   — sealed to the class
/// ```
///
/// Each section has its own fresh random key, sealed (`crypto_box_seal`) to a class
/// public key, so writing needs no secret key and every class is writable in every
/// state. Both sections take the whole header as associated data: a file copied
/// over another widget's, or with its class or generation edited, fails to open.
/// One file holds both sections so that a single `rename` replaces them together.
enum TimelineFile {
    static let magic = Array("WDTL".utf8)
    static let version: UInt8 = 1
    static let fileExtension = ".wtl"
    /// A hard ceiling on a file's size when reading, whatever the configured limits.
    static let maximumFileBytes = 64 << 20
    /// A hard ceiling on the family name.
    static let maximumFamilyBytes = 255

    private static let metadataLabel = Array("widgetd.v1.timeline.metadata".utf8)
    private static let bodyLabel = Array("widgetd.v1.timeline.body".utf8)

    /// The authenticated header.
    struct Header: Equatable {
        let protectionClass: ProtectionClass
        let generation: UInt64
        let widget: WidgetID

        var encoded: [UInt8] {
            var w = ByteWriter()
            w.raw(TimelineFile.magic)
            w.u8(TimelineFile.version)
            w.u8(protectionClass.code)
            w.u64(generation)
            let id = Array(widget.description.utf8)
            w.u8(UInt8(id.count))
            w.raw(id)
            return w.bytes
        }
    }

    /// A parsed, not yet decrypted file.
    struct Sealed {
        let header: Header
        let headerBytes: [UInt8]
        let metadataKey: [UInt8]
        let metadata: [UInt8]
        let bodyKey: [UInt8]
        let body: [UInt8]
    }

    /// Two locked buffers for a file's section keys, allocated once by a writer and
    /// refilled from the CSPRNG for every file, then zeroed: a `sodium_malloc` and
    /// `sodium_free` per key cost about twenty system calls per write.
    ///
    /// Not thread-safe: one writer (thread) per scratch.
    final class KeyScratch: @unchecked Sendable {
        let metadataKey: SecureBytes
        let bodyKey: SecureBytes

        init() throws(CryptoError) {
            metadataKey = try SecureBytes.zeroed(count: AEAD.keyByteCount)
            bodyKey = try SecureBytes.zeroed(count: AEAD.keyByteCount)
        }

        /// The scratches of every writer thread, each taken by one thread at a time.
        /// They hold only zeroes between uses; a handful exist (one per concurrent writer).
        static let pool = Pool()

        /// Hands out scratches, making a new one only when all are in use.
        final class Pool: @unchecked Sendable {
            private let lock = NSLock()
            private var idle: [KeyScratch] = []

            /// Runs `body` with a scratch no other thread uses meanwhile.
            func withScratch<R>(_ body: (KeyScratch) throws(StoreError) -> R) throws(StoreError) -> R {
                let taken = lock.withLock { idle.popLast() }
                let scratch: KeyScratch
                if let taken {
                    scratch = taken
                } else {
                    do { scratch = try KeyScratch() } catch { throw StoreError(error) }
                }
                defer { lock.withLock { idle.append(scratch) } }
                return try body(scratch)
            }
        }
    }

    /// Builds a file. Needs only public keys. `keys` are reused buffers for the
    /// section keys (zeroed again before this returns); nil allocates fresh ones.
    static func encode(
        _ metadata: TimelineMetadata, body: SecureBytes, classPublicKey: PublicKey, classDPublicKey: PublicKey,
        keys: KeyScratch? = nil
    ) throws(CryptoError) -> [UInt8] {
        let header = Header(protectionClass: metadata.protectionClass, generation: metadata.generation, widget: metadata.widget)
        let headerBytes = header.encoded
        let metadataKey: SecureBytes
        let bodyKey: SecureBytes
        if let keys {
            metadataKey = keys.metadataKey
            bodyKey = keys.bodyKey
            try metadataKey.refillRandom()
            try bodyKey.refillRandom()
        } else {
            metadataKey = try AEAD.generateKey()
            bodyKey = try AEAD.generateKey()
        }
        defer {
            metadataKey.zeroInPlace()
            bodyKey.zeroInPlace()
        }
        var w = ByteWriter()
        w.raw(headerBytes)
        w.raw(try SealedBox.seal(metadataKey, to: classDPublicKey))
        w.block(try AEAD.seal(encodeMetadata(metadata), key: metadataKey, associatedData: metadataLabel + headerBytes))
        w.raw(try SealedBox.seal(bodyKey, to: classPublicKey))
        w.block(try AEAD.seal(body, key: bodyKey, associatedData: bodyLabel + headerBytes))
        return w.bytes
    }

    /// Parses the framing and checks the header belongs to `expected` (when given). Decrypts nothing.
    static func parse(_ bytes: [UInt8], expected: WidgetID?, file: String) throws(StoreError) -> Sealed {
        guard bytes.count >= magic.count else { throw .corrupt(file: file, reason: .truncated) }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .corrupt(file: file, reason: .badMagic) }
        let parsed: Result<Sealed, StoreError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(StoreError) in try parseFraming(buffer, file: file) }
        }
        let sealed = try parsed.get()
        guard expected == nil || sealed.header.widget == expected else { throw .corrupt(file: file, reason: .wrongWidget) }
        return sealed
    }

    private static func parseFraming(_ buffer: UnsafeRawBufferPointer, file: String) throws(StoreError) -> Sealed {
        var r = ByteReader(buffer)
        do {
            _ = try r.raw(magic.count)
            guard try r.u8() == version else { throw StoreError.corrupt(file: file, reason: .unsupportedVersion) }
            guard let c = ProtectionClass(code: try r.u8()) else { throw StoreError.corrupt(file: file, reason: .wrongClass) }
            let generation = try r.u64()
            let idBytes = try r.raw(Int(try r.u8()))
            guard let id = String(validating: idBytes, as: UTF8.self), let widget = try? WidgetID(id) else {
                throw StoreError.corrupt(file: file, reason: .malformed)
            }
            let headerBytes = Array(buffer[0..<r.offset])
            let sealedKeyBytes = AEAD.keyByteCount + SealedBox.overhead
            let metadataKey = try r.raw(sealedKeyBytes)
            let metadata = try r.block(limit: maximumFileBytes)
            let bodyKey = try r.raw(sealedKeyBytes)
            let body = try r.block(limit: maximumFileBytes)
            guard r.isAtEnd else { throw StoreError.corrupt(file: file, reason: .malformed) }
            return Sealed(
                header: Header(protectionClass: c, generation: generation, widget: widget), headerBytes: headerBytes,
                metadataKey: metadataKey, metadata: metadata, bodyKey: bodyKey, body: body)
        } catch let failure as ByteReader.Failure {
            throw .corrupt(file: file, reason: failure == .truncated ? .truncated : .malformed)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupt(file: file, reason: .malformed)
        }
    }

    /// Decrypts and checks the class-`none` section.
    static func openMetadata(_ sealed: Sealed, classD: KeyPair, file: String) throws(StoreError) -> TimelineMetadata {
        let plaintext: SecureBytes
        do {
            let key = try SealedBox.open(sealed.metadataKey, keyPair: classD)
            plaintext = try AEAD.open(sealed.metadata, key: key, associatedData: metadataLabel + sealed.headerBytes)
        } catch {
            throw StoreError.reading(file, error)
        }
        let decoded: Result<TimelineMetadata, ByteReader.Failure> = plaintext.withUnsafeBytes { buffer in
            Result { () throws(ByteReader.Failure) in try decodeMetadata(buffer, widget: sealed.header.widget) }
        }
        guard case .success(let metadata) = decoded else { throw .corrupt(file: file, reason: .malformed) }
        guard metadata.protectionClass == sealed.header.protectionClass else { throw .corrupt(file: file, reason: .wrongClass) }
        guard metadata.generation == sealed.header.generation else { throw .corrupt(file: file, reason: .malformed) }
        return metadata
    }

    /// Decrypts the body into secure memory with the class key pair.
    static func openBody(_ sealed: Sealed, classKey: KeyPair, file: String) throws(StoreError) -> SecureBytes {
        do {
            let key = try SealedBox.open(sealed.bodyKey, keyPair: classKey)
            return try AEAD.open(sealed.body, key: key, associatedData: bodyLabel + sealed.headerBytes)
        } catch {
            throw StoreError.reading(file, error)
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
