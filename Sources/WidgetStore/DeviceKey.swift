import Glibc
import WidgetCrypto

/// The device key: 32 random bytes, the analogue of Apple's hardware UID (DESIGN §3).
///
/// Read from the systemd credential `$CREDENTIALS_DIRECTORY/device-key` when there is
/// one (an administrator can seal it to a TPM2 with `systemd-creds encrypt`), else
/// from `STATE/device.key`, created with mode 0600 on first start. An existing
/// state-directory key that its group or others can read is refused: a copied key
/// would let a stolen state directory be brute-forced off the device. Neither file is
/// read through a symbolic link or unless it is a regular file of the daemon's uid
/// (the credential may also be root's: systemd keeps it so, readable through an ACL).
///
/// The key itself is used only to derive one subkey per purpose (`Purpose`).
struct DeviceKey {
    /// Key length in bytes.
    static let byteCount = 32
    /// The file name inside `$CREDENTIALS_DIRECTORY`.
    static let credentialName = "device-key"
    /// The file name inside the state directory.
    static let stateFileName = "device.key"

    /// Where the key came from.
    enum Source: Equatable {
        /// A systemd credential: read-only to us, so a wipe cannot destroy it.
        case credential(path: String)
        /// `STATE/device.key`, which a wipe deletes.
        case stateFile(path: String)
    }

    /// One subkey per use, so that no key serves two purposes.
    enum Purpose: String {
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
    }

    private let key: SecureBytes
    let source: Source

    /// Loads the credential, or the state-directory key, creating it if absent and
    /// `mayCreate` (no keybag yet). A key missing beside a keybag is an error, not a
    /// new key: that would replace the evidence with a key that opens nothing.
    static func load(stateDirectory: String, credentialsDirectory: String?, mayCreate: Bool) throws(StoreError) -> DeviceKey {
        if let credentials = credentialsDirectory {
            let path = "\(credentials)/\(credentialName)"
            if let found = try FileSystem.readSecret(path, expected: byteCount, owners: .daemonOrRoot) {
                return DeviceKey(key: found.bytes, source: .credential(path: path))
            }
        }
        let path = "\(stateDirectory)/\(stateFileName)"
        // Never through a link: one to a key elsewhere would bind the store to a file it does not own.
        if let found = try FileSystem.readSecret(path, expected: byteCount) {
            guard found.mode & 0o077 == 0, found.owner == geteuid() else {
                throw .deviceKey(.insecurePermissions(path: path))
            }
            return DeviceKey(key: found.bytes, source: .stateFile(path: path))
        }
        guard mayCreate else { throw .deviceKey(.missing(path: path)) }
        let fresh = try crypto { () throws(CryptoError) in try SecureBytes.random(count: byteCount) }
        try FileSystem.createSecretFile(path, directory: stateDirectory, contents: fresh)
        return DeviceKey(key: fresh, source: .stateFile(path: path))
    }

    /// The subkey for one purpose.
    func subkey(_ purpose: Purpose) throws(StoreError) -> SecureBytes {
        try crypto { () throws(CryptoError) in try KeyedHash.deriveKey(from: key, label: purpose.rawValue) }
    }
}
