import Glibc
import SecureMemory
import StoreFiles
import WidgetdPOSIX

/// The software device-key source (DESIGN §3): the systemd credential
/// `$CREDENTIALS_DIRECTORY/device-key` when there is one (an administrator can seal it
/// to a TPM2 with `systemd-creds encrypt`), else `STATE/device.key`, created with mode
/// 0600 on first start.
///
/// An existing state-directory key that its group or others can read is refused: a
/// copied key would let a stolen state directory be brute-forced off the device.
/// Neither file is read through a symbolic link or unless it is a regular file of the
/// daemon's uid (the credential may also be root's: systemd keeps it so, readable
/// through an ACL).
package struct FileDeviceKeySource: DeviceKeySource {
    /// The file name inside `$CREDENTIALS_DIRECTORY`.
    private static let credentialName = "device-key"
    /// The file name inside the state directory.
    package static let stateFileName = "device.key"

    private let stateDirectory: String
    private let credentialsDirectory: String?

    /// The source for a state directory, preferring the credential in `credentialsDirectory`.
    package init(stateDirectory: String, credentialsDirectory: String?) {
        self.stateDirectory = stateDirectory
        self.credentialsDirectory = credentialsDirectory
    }

    /// The credential, or the state-directory key, created if absent and `mayCreate`.
    package func loadDeviceKey(mayCreate: Bool) throws(KeyError) -> (key: SecureBytes, kind: DeviceKeyKind) {
        if let credentials = credentialsDirectory {
            let path = "\(credentials)/\(Self.credentialName)"
            if let found = try Self.readSecret(path, expected: DeviceKey.byteCount, owners: .daemonOrRoot) {
                return (found.bytes, .credential)
            }
        }
        let path = "\(stateDirectory)/\(Self.stateFileName)"
        // Never through a link: one to a key elsewhere would bind the store to a file it does not own.
        if let found = try Self.readSecret(path, expected: DeviceKey.byteCount) {
            guard found.mode & 0o077 == 0, found.owner == geteuid() else {
                throw .deviceKey(.insecurePermissions(path: path))
            }
            return (found.bytes, .file)
        }
        guard mayCreate else { throw .deviceKey(.missing(path: path)) }
        let fresh = try KeyError.secureMemory { () throws(SecureMemoryError) in try SecureBytes.random(count: DeviceKey.byteCount) }
        try throughFiles { () throws(FileError) in try FileSystem.createSecretFile(path, directory: stateDirectory, contents: fresh) }
        return (fresh, .file)
    }

    /// Removes `STATE/device.key`; a credential cannot be destroyed from here.
    package func destroyDeviceKey() throws(KeyError) {
        try throughFiles { () throws(FileError) in try FileSystem.remove("\(stateDirectory)/\(Self.stateFileName)") }
    }

    /// What `readSecret` found.
    private struct SecretFile {
        /// The bytes, in secure memory.
        let bytes: SecureBytes
        /// Permission bits and owner, for the caller's policy.
        let mode: mode_t
        let owner: uid_t
    }

    /// Reads a small secret file straight into secure memory (never through an array),
    /// or returns `nil` if it does not exist. The size must be exactly `expected`; the
    /// file is opened as `FileSystem.openFile` says (no link followed, `owners`).
    private static func readSecret(
        _ path: String, expected: Int, owners: FileSystem.Owners = .daemon
    ) throws(KeyError) -> SecretFile? {
        guard let (fd, info) = try throughFiles({ () throws(FileError) in try FileSystem.openFileWithStatus(path, owners: owners) })
        else { return nil }
        defer { Syscall.close(fd) }
        guard Int(info.st_size) == expected else {
            throw .deviceKey(.wrongSize(path: path, bytes: Int(info.st_size)))
        }
        let secret = try KeyError.secureMemory { () throws(SecureMemoryError) in try SecureBytes.zeroed(count: expected) }
        var offset = 0
        while offset < expected {
            let n = try secret.withUnsafeMutableBytes { (buffer) throws(KeyError) in
                try throughFiles { () throws(FileError) in
                    try FileSystem.call("read", path) { read(fd.rawValue, buffer.baseAddress! + offset, expected - offset) }
                }
            }
            if n == 0 { throw .deviceKey(.wrongSize(path: path, bytes: offset)) }
            offset += n
        }
        return SecretFile(bytes: secret, mode: info.st_mode & 0o7777, owner: info.st_uid)
    }
}
