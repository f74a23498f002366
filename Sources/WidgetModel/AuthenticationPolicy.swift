/// What a locked device asks before an action runs (DESIGN §13), as App Intents'
/// `IntentAuthenticationPolicy`.
public enum AuthenticationPolicy: String, Sendable, Hashable, CaseIterable {
    /// Runs whatever the lock state: play/pause on a lock screen.
    case alwaysAllowed
    /// Runs at once while unlocked; while locked it is held until an unlock.
    case requiresAuthentication
    /// As `requiresAuthentication`, and never from a `remote` surface.
    case requiresLocalDeviceAuthentication

    /// The policy of an action that names none: the safe one.
    public static let `default` = AuthenticationPolicy.requiresAuthentication

    /// The words an error lists the known policies in.
    static let known = #""alwaysAllowed", "requiresAuthentication" or "requiresLocalDeviceAuthentication""#
}

extension AuthenticationPolicy: Codable {
    /// Decodes the wire spelling; an unknown policy is rejected without being echoed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self), let value = AuthenticationPolicy(rawValue: text) else {
            throw ModelDecodingFailure(decoder.codingPath, "must be \(Self.known)")
        }
        self = value
    }

    /// Encodes the wire spelling.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
