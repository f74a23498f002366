/// A problem with the device key.
package enum DeviceKeyProblem: Sendable, Equatable, CustomStringConvertible {
    /// The key file can be read by its group or by others (or is not owned by us).
    case insecurePermissions(path: String)
    /// The key file does not hold exactly 32 bytes.
    case wrongSize(path: String, bytes: Int)
    /// The key file is missing while a keybag made with it exists.
    case missing(path: String)
    /// The injected source (a TPM) could not give or destroy the key: its own text,
    /// which names the device and the refusal and never the key.
    case sourceFailed(source: DeviceKeyKind, reason: String)

    package var description: String {
        switch self {
        case .insecurePermissions(let path):
            "device key \(path) is readable by group or others, or owned by another user; fix with chmod 600 / chown, or remove it only if no data must survive"
        case .wrongSize(let path, let bytes):
            "device key \(path) holds \(bytes) bytes; it must hold exactly 32 (e.g. head -c 32 /dev/urandom)"
        case .missing(let path):
            "device key \(path) is missing while the keybag made with it exists; restore it (nothing was changed), or erase everything with widgetd --start-over after removing the keybag too"
        case .sourceFailed(let source, let reason):
            "the \(source.rawValue) device key cannot be used: \(reason)"
        }
    }
}
