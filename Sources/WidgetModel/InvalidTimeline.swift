/// A timeline, entry list, reload policy or placeholder was rejected.
///
/// `reason` names where the problem is and what is wrong, e.g.
/// `entries[3].fields["temp"]: value is not a finite number`, so that the provider's
/// author can fix it. It never quotes a field's value: values may be private.
public struct InvalidTimeline: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where and what, in one line.
    public let reason: String

    /// Makes an error with a reason already written.
    public init(reason: String) {
        self.reason = reason
    }

    /// Describes any error thrown while decoding model types, naming where it happened.
    ///
    /// The daemon decodes entries inside its own request types; this turns what its
    /// `JSONDecoder` threw into a reason with the same path notation.
    public init(decoding error: any Error) {
        switch error {
        case let failure as ModelDecodingFailure:
            self.init(reason: Self.join(failure.path, failure.message))
        case let failure as InvalidTimeline:
            self = failure
        case DecodingError.typeMismatch(let type, let context):
            let path = ModelPath.describe(context.codingPath)
            self.init(reason: Self.join(path, "expected \(ModelPath.describe(type: type))"))
        case DecodingError.valueNotFound(let type, let context):
            let path = ModelPath.describe(context.codingPath)
            self.init(reason: Self.join(path, "is null; expected \(ModelPath.describe(type: type))"))
        case DecodingError.keyNotFound(let key, let context):
            let path = ModelPath.describe(context.codingPath)
            self.init(reason: Self.join(path, "missing \(ModelPath.quote(key.stringValue))"))
        case DecodingError.dataCorrupted(let context):
            // The decoder's own texts may quote input (a character, a number): say less.
            let path = ModelPath.describe(context.codingPath)
            self.init(reason: Self.join(path, path.isEmpty ? "is not valid JSON" : "is malformed"))
        default:
            self.init(reason: "is not valid JSON")
        }
    }

    /// The reason itself.
    public var description: String { reason }

    private static func join(_ path: String, _ message: String) -> String {
        path.isEmpty ? message : "\(path): \(message)"
    }
}

/// An error thrown from the model's own `init(from:)`, carrying the path already described.
///
/// `JSONDecoder` rethrows errors from `init(from:)` unchanged, so this reaches
/// `InvalidTimeline(decoding:)` intact.
struct ModelDecodingFailure: Error, Sendable {
    let path: String
    let message: String

    init(_ codingPath: [any CodingKey], _ message: String) {
        self.path = ModelPath.describe(codingPath)
        self.message = message
    }
}

/// Writes coding paths the way a person reads JSON: `entries[3].fields["temp"].privacy`.
enum ModelPath {
    /// The longest field name quoted in a message, in bytes; longer ones are cut with `…`.
    static let quotedNameLimit = 64

    static func describe(_ path: [any CodingKey]) -> String {
        var out = ""
        // After `fields`, the next key is a field name; after `value`, every key is data.
        var nextIsName = false
        var insideValue = false
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                out += "[\(index)]"
            } else if nextIsName || insideValue {
                out += "[\(quote(key.stringValue))]"
                nextIsName = false
            } else {
                out += out.isEmpty ? key.stringValue : ".\(key.stringValue)"
                nextIsName = key.stringValue == "fields"
                insideValue = key.stringValue == "value"
            }
        }
        return out
    }

    static func describe(type: Any.Type) -> String {
        if type == String.self { return "a string" }
        if type == Double.self || type == Int.self || type == Float.self { return "a number" }
        if type == Bool.self { return "true or false" }
        let name = "\(type)"
        if name.hasPrefix("Dictionary") || name.hasPrefix("[") && name.contains(":") { return "an object" }
        if name.hasPrefix("Array") || name.hasPrefix("[") { return "an array" }
        return "an object"
    }

    /// Quotes a name given by a provider so that a message stays one printable line.
    static func quote(_ name: String) -> String {
        var out = "\""
        var bytes = 0
        for scalar in name.unicodeScalars {
            bytes += String(scalar).utf8.count
            if bytes > quotedNameLimit { out += "…"; break }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Any key, to list what an object holds and reject the keys a type does not know.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws if the object being decoded has a key outside `allowed`.
    ///
    /// Strictness catches typos such as `privcy`, which would otherwise silently
    /// turn a sensitive field into an ordinary one.
    ///
    /// `Keys` is the type's own coding keys: a key is allowed when it names one. This runs
    /// for every entry and field of every write, so the common case (no unknown key)
    /// builds no set and sorts nothing; the first unknown key in sorted order is named.
    func rejectUnknownKeys<Keys: CodingKey>(_ keys: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        let all = container.allKeys
        guard all.contains(where: { Keys(stringValue: $0.stringValue) == nil }) else { return }
        for key in all.sorted(by: { $0.stringValue < $1.stringValue }) where Keys(stringValue: key.stringValue) == nil {
            throw ModelDecodingFailure(codingPath, "unknown key \(ModelPath.quote(key.stringValue))")
        }
    }
}
