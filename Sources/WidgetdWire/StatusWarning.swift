/// Something an administrator must know that does not stop the daemon, reported in
/// `GetStatus.warnings` (omitted when there is none) and logged when it begins.
public enum StatusWarning: String, Codable, Sendable, CaseIterable {
    /// The settings file could not be read (missing from a store that is not new,
    /// damaged, or altered): the most restrictive settings apply until `SetSettings`.
    case settingsUnreadable
    /// Some secure memory could not be locked (`RLIMIT_MEMLOCK`): it may be swapped
    /// out. With `RequireLockedMemory=yes` no decrypted timeline is cached in it.
    case memoryNotLocked
}
