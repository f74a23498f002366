import Glibc
import SecureMemory

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
public struct FileDeviceKeySource: DeviceKeySource {
    /// The file name inside `$CREDENTIALS_DIRECTORY`.
    private static let credentialName = "device-key"
    /// The file name inside the state directory.
    static let stateFileName = "device.key"

    private let stateDirectory: String
    private let credentialsDirectory: String?

    /// The source for a state directory, preferring the credential in `credentialsDirectory`.
    public init(stateDirectory: String, credentialsDirectory: String?) {
        self.stateDirectory = stateDirectory
        self.credentialsDirectory = credentialsDirectory
    }

    /// The credential, or the state-directory key, created if absent and `mayCreate`.
    public func loadDeviceKey(mayCreate: Bool) throws(StoreError) -> (key: SecureBytes, kind: DeviceKeyKind) {
        if let credentials = credentialsDirectory {
            let path = "\(credentials)/\(Self.credentialName)"
            if let found = try FileSystem.readSecret(path, expected: DeviceKey.byteCount, owners: .daemonOrRoot) {
                return (found.bytes, .credential)
            }
        }
        let path = "\(stateDirectory)/\(Self.stateFileName)"
        // Never through a link: one to a key elsewhere would bind the store to a file it does not own.
        if let found = try FileSystem.readSecret(path, expected: DeviceKey.byteCount) {
            guard found.mode & 0o077 == 0, found.owner == geteuid() else {
                throw .deviceKey(.insecurePermissions(path: path))
            }
            return (found.bytes, .file)
        }
        guard mayCreate else { throw .deviceKey(.missing(path: path)) }
        let fresh = try secureMemory { () throws(SecureMemoryError) in try SecureBytes.random(count: DeviceKey.byteCount) }
        try FileSystem.createSecretFile(path, directory: stateDirectory, contents: fresh)
        return (fresh, .file)
    }

    /// Removes `STATE/device.key`; a credential cannot be destroyed from here.
    public func destroyDeviceKey() throws(StoreError) {
        try FileSystem.remove("\(stateDirectory)/\(Self.stateFileName)")
    }
}
