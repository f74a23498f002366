/// How a field behaves when content is hidden (DESIGN §2, §4).
///
/// A field without a privacy marker is ordinary: shown in `content` and `redacted`
/// modes, replaced in `placeholder` mode.
public enum Privacy: String, Sendable, Hashable, CaseIterable {
    /// SwiftUI's `privacySensitive()`: replaced whenever the presentation is redacted.
    case sensitive
    /// SwiftUI's `unredacted()`: shown even in a placeholder.
    case `public`
}

extension Privacy: Codable {
    /// Decodes the wire spelling; an unknown value is rejected without being echoed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self), let value = Privacy(rawValue: text) else {
            throw ModelDecodingFailure(decoder.codingPath, "must be \"sensitive\" or \"public\"")
        }
        self = value
    }

    /// Encodes the wire spelling.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
