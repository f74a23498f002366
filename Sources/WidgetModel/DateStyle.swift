/// How a `date` field is drawn (DESIGN §12), as SwiftUI's `Text(date, style:)`.
public enum DateStyle: String, Sendable, Hashable, CaseIterable {
    /// The time of day: "14:05".
    case time
    /// The day: "6 Dec 2026".
    case date
    /// The distance from now: "in 5 min", "2 h ago"; the host redraws it each minute.
    case relative
    /// A running count towards or from the date: "04:59"; the host redraws it each second.
    case timer

    /// The words an error lists the known styles in.
    static let known = #""time", "date", "relative" or "timer""#
}

extension DateStyle: Codable {
    /// Decodes the wire spelling; an unknown style is rejected without being echoed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self), let value = DateStyle(rawValue: text) else {
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
