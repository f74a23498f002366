import Foundation
import WidgetModel

/// JSON values as text: for `--json` output and for showing a field's value.
enum JSONText {
    /// One line, sorted keys, slashes unescaped.
    static func compact(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A field value as a person reads it: strings bare, whole numbers without `.0`.
    static func display(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .string(let text): text
        case .number(let number): format(number: number)
        case .array, .object: compact(value)
        }
    }

    /// `21` for 21.0, `21.5` for 21.5.
    static func format(number value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
