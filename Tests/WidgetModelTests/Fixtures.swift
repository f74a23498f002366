import Foundation
@testable import WidgetModel

/// Shared builders for the tests: fixed dates, a widget, and a timeline with one field
/// of each privacy kind.
enum Fixtures {
    /// 2026-01-01T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_767_225_600)

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    static let widget = try! WidgetID("com.example.weather/forecast#lock-1")
    static let otherWidget = try! WidgetID("com.example.weather/forecast#home-2")

    /// A value that must never reach a host unless the mode is `content`.
    static let secret = "hunter2-SECRET-7f3a"

    static func entry(at seconds: Double, secret: JSONValue = .string(Fixtures.secret)) -> Entry {
        Entry(
            date: at(seconds), relevance: Relevance(score: 0.5, duration: 60),
            fields: [
                "balance": Field(value: secret, privacy: .sensitive),
                "title": Field(value: .string("Account"), privacy: .public),
                "temp": Field(value: .number(21.5)),
            ])
    }

    static let timeline = Timeline(entries: [entry(at: 0), entry(at: 600)], policy: .atEnd)

    static let placeholder = Placeholder(fields: [
        "balance": Field(value: .string("— €"), privacy: .sensitive),
        "title": Field(value: .string("Account"), privacy: .public),
        "temp": Field(value: .string("--°")),
    ])

    static func json(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
