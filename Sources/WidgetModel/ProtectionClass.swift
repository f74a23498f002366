/// A data-protection class: when a timeline's key is available (DESIGN §3).
///
/// The raw values are the configuration and wire spellings.
public enum ProtectionClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// Apple's class A: readable only while unlocked; purged a grace period after lock.
    case complete
    /// Apple's class B: secret purged at lock; timelines already open stay readable to their provider.
    case completeUnlessOpen
    /// Apple's class C, the default: readable from the first unlock until the daemon stops.
    case completeUntilFirstUserAuthentication
    /// Apple's class D: always readable; protected by the device key only.
    case none

    /// A one-byte code for file headers; stable across versions.
    public var code: UInt8 {
        switch self {
        case .complete: 1
        case .completeUnlessOpen: 2
        case .completeUntilFirstUserAuthentication: 3
        case .none: 4
        }
    }

    /// The class for a header code, or `nil` for an unknown code.
    public init?(code: UInt8) {
        guard let found = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = found
    }
}
