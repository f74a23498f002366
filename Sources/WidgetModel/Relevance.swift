/// How relevant an entry is, for hosts that rotate widgets (WidgetKit's `TimelineEntryRelevance`).
public struct Relevance: Sendable, Hashable {
    /// A score relative to the provider's other entries; must be finite.
    public var score: Double
    /// How long the score holds, in seconds; finite and not negative.
    public var duration: Double

    /// Makes a relevance; `TimelineValidator` checks the numbers.
    public init(score: Double, duration: Double) {
        self.score = score
        self.duration = duration
    }
}

extension Relevance: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case score, duration
    }

    /// Decodes `{"score": …, "duration": …}`, rejecting unknown keys.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        score = try container.decode(Double.self, forKey: .score)
        duration = try container.decode(Double.self, forKey: .duration)
    }
}
