import FoundationEssentials
import WidgetModel

/// JSON values as text: for `--json` output and for showing a field's value.
enum JSONText {
    /// One line, sorted keys, slashes unescaped, numbers exactly as their text.
    static func compact(_ value: JSONValue) -> String {
        String(decoding: value.jsonBytes, as: UTF8.self)
    }

    /// A field value as a person reads it: strings bare, numbers as the provider wrote them.
    static func display(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .string(let text): text
        case .number(let number): number.text
        case .array, .object: compact(value)
        }
    }

    /// `21` for 21.0, `21.5` for 21.5.
    static func format(number value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
