import FoundationEssentials

/// When the provider should be asked for a new timeline (WidgetKit's `TimelineReloadPolicy`).
public enum ReloadPolicy: Sendable, Hashable {
    /// Reload once the last entry's date is reached. The default.
    case atEnd
    /// Reload at the given date.
    case after(Date)
    /// Never ask; the provider writes when it has news.
    case never
}

extension ReloadPolicy: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, date
    }

    /// Decodes `{"kind":"atEnd"}`, `{"kind":"after","date":…}` or `{"kind":"never"}`.
    ///
    /// `"date": null` counts as absent, as Varlink clients may send it for optional fields.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        let hasDate = try container.contains(.date) && !container.decodeNil(forKey: .date)
        switch kind {
        case "atEnd", "never":
            guard !hasDate else {
                throw ModelDecodingFailure(container.codingPath + [CodingKeys.date], "is only allowed with kind \"after\"")
            }
            self = kind == "atEnd" ? .atEnd : .never
        case "after":
            guard hasDate else {
                throw ModelDecodingFailure(container.codingPath, "kind \"after\" needs a \"date\"")
            }
            self = .after(try container.decodeRFC3339(forKey: .date))
        default:
            throw ModelDecodingFailure(
                container.codingPath + [CodingKeys.kind], "must be \"atEnd\", \"after\" or \"never\"")
        }
    }

    /// Encodes the wire shape; only `after` has a date.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .atEnd:
            try container.encode("atEnd", forKey: .kind)
        case .after(let date):
            try container.encode("after", forKey: .kind)
            try container.encode(RFC3339.format(date), forKey: .date)
        case .never:
            try container.encode("never", forKey: .kind)
        }
    }
}
