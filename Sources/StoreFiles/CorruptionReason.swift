/// Why a file failed verification. Never says anything about its plaintext.
package enum CorruptionReason: Sendable, Equatable, CustomStringConvertible {
    /// A MAC, AEAD tag or sealed box did not verify: altered, moved between classes, or a foreign key.
    case authenticationFailure
    /// The file ends before its format says it should.
    case truncated
    /// The file does not start with the expected magic bytes.
    case badMagic
    /// A format version this build does not read.
    case unsupportedVersion
    /// The file belongs to another widget (copied or renamed over this one).
    case wrongWidget
    /// The file's class is unknown or disagrees with its authenticated metadata.
    case wrongClass
    /// A length or field is out of range, or bytes follow the end of the format.
    case malformed
    /// The file is sealed to class keys this keybag does not hold: the keybag is older
    /// than the file (restored from a backup), and opens nothing written after it.
    /// Thrown for a body only; the file's metadata stays readable.
    case unknownKeyGeneration
    /// The file is older than the generation the catalog records for its widget
    /// (restored from a backup): refused, its body never served. Thrown for a body only.
    case rolledBack

    package var description: String {
        switch self {
        case .authenticationFailure: "authentication failed (altered, or not made with this device key)"
        case .truncated: "truncated"
        case .badMagic: "not a widgetd file (bad magic)"
        case .unsupportedVersion: "unsupported format version"
        case .wrongWidget: "belongs to another widget"
        case .wrongClass: "unknown or inconsistent protection class"
        case .malformed: "malformed"
        case .unknownKeyGeneration: "sealed to class keys the keybag does not hold (a keybag restored from before the file?)"
        case .rolledBack: "rolled back: older than the generation the catalog records (a file restored from a backup?)"
        }
    }
}
