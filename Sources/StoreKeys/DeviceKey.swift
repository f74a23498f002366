import SecureMemory
import WidgetCrypto

/// The device key: 32 random bytes, the analogue of Apple's hardware UID (DESIGN §3),
/// as a `DeviceKeySource` supplied it.
///
/// The key itself is used only to derive one subkey per purpose (`Purpose`).
package struct DeviceKey {
    /// Key length in bytes.
    package static let byteCount = 32

    /// One subkey per use, so that no key serves two purposes.
    package enum Purpose: String {
        case keybagMAC = "widgetd.v1.keybag-mac"
        case classWrap = "widgetd.v1.class-wrap"
        case fileName = "widgetd.v1.file-name"
        case wrongPasscodeTag = "widgetd.v1.wrong-passcode"
        case passcodeTangle = "widgetd.v1.passcode-tangle"
        case settingsMAC = "widgetd.v1.settings-mac"
        /// Seals timeline files' class-`none` metadata (format version 2).
        case timelineMetadata = "widgetd.v2.timeline-metadata"
        /// Authenticates the write-ahead journal's records.
        case journalMAC = "widgetd.v2.journal-mac"
        /// Authenticates the catalog of generations and deletions (`GenerationLedger`).
        case ledgerMAC = "widgetd.v3.catalog-mac"
    }

    private let key: SecureBytes
    /// What holds it.
    package let kind: DeviceKeyKind

    /// Loads the key from `source` (see `DeviceKeySource.loadDeviceKey`).
    package static func load(from source: any DeviceKeySource, mayCreate: Bool) throws(KeyError) -> DeviceKey {
        let (key, kind) = try source.loadDeviceKey(mayCreate: mayCreate)
        guard key.count == byteCount else { throw .deviceKey(.wrongSize(path: "\(kind.rawValue) device key", bytes: key.count)) }
        return DeviceKey(key: key, kind: kind)
    }

    /// The subkey for one purpose.
    package func subkey(_ purpose: Purpose) throws(KeyError) -> SecureBytes {
        try KeyError.crypto { () throws(CryptoError) in try KeyedHash.deriveKey(from: key, label: purpose.rawValue) }
    }
}
