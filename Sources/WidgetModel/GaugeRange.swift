/// The bounds a `gauge` field's value lies within (DESIGN §12): `[min, max]` on the wire,
/// `[0, 1]` when a gauge gives none.
public struct GaugeRange: Sendable, Hashable {
    /// The empty end of the gauge.
    public var lowerBound: Double
    /// The full end of the gauge.
    public var upperBound: Double

    /// The range a gauge without `range` has.
    public static let unit = GaugeRange(lowerBound: 0, upperBound: 1)

    /// Makes a range; `TimelineValidator` refuses one upside down or not finite.
    public init(lowerBound: Double, upperBound: Double) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    /// Whether `value` lies within the bounds, both included.
    public func contains(_ value: Double) -> Bool {
        value >= lowerBound && value <= upperBound
    }
}

extension GaugeRange: Codable {
    /// Decodes `[min, max]`: two numbers, nothing else.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        guard container.count == 2 else {
            throw ModelDecodingFailure(decoder.codingPath, "must be [min, max]: two numbers")
        }
        do {
            lowerBound = try container.decode(Double.self)
            upperBound = try container.decode(Double.self)
        } catch {
            throw ModelDecodingFailure(decoder.codingPath, "must be [min, max]: two numbers")
        }
    }

    /// Encodes `[min, max]`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(lowerBound)
        try container.encode(upperBound)
    }
}
