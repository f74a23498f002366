/// The device's lock state (DESIGN §3).
public enum DeviceState: String, Sendable, Hashable, Codable, CaseIterable {
    /// After start, until the first successful unlock. A restart of the daemon is a reboot.
    case beforeFirstUnlock
    /// Unlocked: every class key is released.
    case unlocked
    /// Locked after the first unlock.
    case locked
}
