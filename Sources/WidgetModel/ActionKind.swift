/// How an action is drawn and what performing it means (DESIGN §13).
public enum ActionKind: String, Sendable, Hashable, CaseIterable {
    /// Performed as it is: `Button(intent:)`.
    case button
    /// Flips `isOn`; the provider is told the new state: `Toggle(isOn:intent:)`.
    case toggle

    /// The words an error lists the known kinds in.
    static let known = #""button" or "toggle""#
}

extension ActionKind: Codable {
    /// Decodes the wire spelling; an unknown kind is rejected without being echoed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self), let value = ActionKind(rawValue: text) else {
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
