import Foundation
import TestSupport

/// Timeline JSON for tests, in the shape of DESIGN §2.
enum Fixtures {
    static func rfc3339(_ date: Date) -> String { TimelineFixtures.rfc3339(date) }

    /// An entry with one sensitive, one public and one ordinary field.
    static func entry(at date: Date, secret: String = "SECRET-4711", headline: String = "Sunny") -> [String: Any] {
        TimelineFixtures.entry(at: date, secret: secret, headline: headline)
    }

    static var placeholder: [String: Any] { [
        "fields": [
            "balance": ["value": "—"],
            "title": ["value": "Weather", "privacy": "public"],
            "headline": ["value": "Loading"],
        ]
    ] }

    /// PutTimeline parameters for `widget` with entries now and later.
    static func putParameters(
        _ widget: String, now: Date = Date(), secret: String = "SECRET-4711", policy: [String: Any]? = nil
    ) -> [String: Any] {
        var parameters: [String: Any] = [
            "widget": widget,
            "family": "systemSmall",
            "entries": [entry(at: now.addingTimeInterval(-60), secret: secret), entry(at: now.addingTimeInterval(3600), secret: secret, headline: "Rain")],
            "placeholder": placeholder,
        ]
        if let policy { parameters["policy"] = policy }
        return parameters
    }

    /// The `presentation` object of a GetPresentation reply.
    static func presentation(_ parameters: [String: Any]) -> [String: Any] {
        parameters["presentation"] as? [String: Any] ?? [:]
    }

    static func mode(_ parameters: [String: Any]) -> String? {
        presentation(parameters)["mode"] as? String
    }

    /// A field of the presented entry.
    static func field(_ parameters: [String: Any], _ name: String) -> [String: Any] {
        let entry = presentation(parameters)["entry"] as? [String: Any] ?? [:]
        return (entry["fields"] as? [String: Any])?[name] as? [String: Any] ?? [:]
    }
}
