import SecureMemory
import StoreFiles
import WidgetCrypto

/// The daemon's settings as opaque bytes, in an authenticated (not encrypted) file.
///
/// Settings are not secret, but an attacker who can write the state directory
/// must not be able to, say, turn on lock-screen access: the file carries a keyed
/// BLAKE2b MAC under a device subkey. Layout: `"WSET"`, version, block, MAC (32).
package enum SettingsFile {
    package static let fileName = "settings"
    package static let magic = Array("WSET".utf8)
    package static let version: UInt8 = 1
    package static let maximumBytes = 1 << 20

    package static func load(stateDirectory: String, macKey: SecureBytes) throws(FileError) -> [UInt8]? {
        let path = "\(stateDirectory)/\(fileName)"
        guard let bytes = try FileSystem.readFile(path, limit: maximumBytes + 64) else { return nil }
        guard bytes.count >= magic.count + 1 + 4 + 32 else { throw .corrupt(file: path, reason: .truncated) }
        guard Array(bytes.prefix(magic.count)) == magic else { throw .corrupt(file: path, reason: .badMagic) }
        let content = Array(bytes.dropLast(32))
        let mac = try FileError.crypto { () throws(CryptoError) in try KeyedHash.hash(content, key: macKey) }
        let stored = Array(bytes.suffix(32))
        guard mac.withUnsafeBytes({ m in stored.withUnsafeBytes { Sodium.constantTimeEquals(m, $0) } }) else {
            throw .corrupt(file: path, reason: .authenticationFailure)
        }
        guard content[magic.count] == version else { throw .corrupt(file: path, reason: .unsupportedVersion) }
        let body: Result<[UInt8], ByteReader.Failure> = content.withUnsafeBytes { buffer in
            Result { () throws(ByteReader.Failure) in
                var r = ByteReader(buffer)
                _ = try r.raw(magic.count + 1)
                let settings = try r.block(limit: maximumBytes)
                guard r.isAtEnd else { throw .malformed }
                return settings
            }
        }
        guard case .success(let settings) = body else { throw .corrupt(file: path, reason: .malformed) }
        return settings
    }

    /// Writes `settings`, which the caller has kept within `maximumBytes`.
    package static func write(_ settings: [UInt8], stateDirectory: String, macKey: SecureBytes) throws(FileError) {
        var w = ByteWriter()
        w.raw(magic)
        w.u8(version)
        w.block(settings)
        let mac = try FileError.crypto { () throws(CryptoError) in try KeyedHash.hash(w.bytes, key: macKey) }
        try FileSystem.writeAtomically(
            directory: stateDirectory, name: fileName, bytes: w.bytes + mac.withUnsafeBytes { Array($0) })
    }
}
