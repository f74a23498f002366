import Foundation

/// Timeline JSON for the tests that talk to the service or the daemon as a client
/// would, in the shape of DESIGN §2: one place for the entry every suite writes.
public enum TimelineFixtures {
    /// `date` as the wire writes it (RFC 3339, whole seconds).
    public static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// An entry with one sensitive, one public and one ordinary field.
    public static func entry(at date: Date, secret: String = "SECRET-4711", headline: String = "Sunny") -> [String: Any] {
        [
            "date": rfc3339(date),
            "fields": [
                "balance": ["value": secret, "privacy": "sensitive"],
                "title": ["value": "Weather", "privacy": "public"],
                "headline": ["value": headline],
            ],
        ]
    }
}
