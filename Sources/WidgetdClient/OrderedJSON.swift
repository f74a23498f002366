import StrictJSON
import Varlink
import WidgetModel

/// A JSON value as its sender wrote it: every object keeps its members in their text
/// order, every number its literal text.
///
/// `JSONValue` holds objects as dictionaries, so printing one sorts its keys, and a
/// decoded `FieldList` is sorted by name; a presentation's fields come in the provider's
/// order, which is the order every host draws them in. The client puts decoded fields
/// back in the reply's order from this, and widgetctl prints replies (`--json`, `call`)
/// from it, so that what they show is what a lock screen shows.
package indirect enum OrderedJSON: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([OrderedJSON])
    case object([Member])

    /// One member of an object.
    package struct Member: Sendable {
        package let name: String
        package let value: OrderedJSON

        /// A member.
        package init(name: String, value: OrderedJSON) {
            self.name = name
            self.value = value
        }
    }

    /// Reads one whole JSON document.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONReadError) -> OrderedJSON {
        try JSONReader.validate(bytes)
        var reader = JSONReader(bytes)
        return try read(from: &reader)
    }

    private static func read(from reader: inout JSONReader) throws(JSONReadError) -> OrderedJSON {
        switch try reader.peek() {
        case .null:
            _ = try reader.readNull()
            return .null
        case .bool: return .bool(try reader.readBool())
        case .number: return .number(try reader.readNumberText())
        case .string: return .string(try reader.readString())
        case .array:
            var items: [OrderedJSON] = []
            try reader.readArray { (reader, _) throws(JSONReadError) in items.append(try read(from: &reader)) }
            return .array(items)
        case .object:
            var members: [Member] = []
            try reader.readObject { (reader, name) throws(JSONReadError) in
                members.append(Member(name: name, value: try read(from: &reader)))
            }
            return .object(members)
        }
    }

    /// The member named `name` of an object (`nil` for anything else).
    package subscript(name: String) -> OrderedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// The item at `index` of an array (`nil` for anything else, or past its end).
    package subscript(index: Int) -> OrderedJSON? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// Whether it is an object.
    package var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// An object's member names in order (empty for anything else).
    package var names: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.name)
    }

    /// One line of compact JSON, members in their order, strings escaped as `JSONText`
    /// escapes them, numbers as their text.
    package var text: String {
        var counter = JSONWriter()
        write(to: &counter)
        let bytes = [UInt8](unsafeUninitializedCapacity: counter.count) { buffer, initialized in
            var writer = JSONWriter(into: UnsafeMutableRawBufferPointer(buffer))
            write(to: &writer)
            initialized = writer.count
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let flag): writer.bool(flag)
        case .number(let text): writer.raw(text)
        case .string(let text): writer.string(text)
        case .array(let items):
            writer.byte(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                item.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "]"))
        case .object(let members):
            writer.byte(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.string(member.name)
                writer.byte(UInt8(ascii: ":"))
                member.value.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }
}

extension VarlinkReplyMessage {
    /// The names of a presentation reply's fields (`presentation.entry.fields`) in the
    /// order sent: the provider's.
    package var fieldOrder: [String] { orderedParameters["presentation"]?["entry"]?["fields"]?.names ?? [] }

    /// The reply's `parameters` as sent: members in their order (`{}` when it has none).
    package var orderedParameters: OrderedJSON {
        withParameterBytes { (try? OrderedJSON.parse($0)) ?? .object([]) }
    }
}

extension FieldList {
    /// The same fields in the order `names` gives (the reply's), any others after them
    /// in their present order: a decoded list is sorted by name, the provider's is not.
    package func ordered(as names: [String]) -> FieldList {
        var ordered = FieldList()
        for name in names { if let value = self[name], !ordered.contains(name: name) { ordered.append(name, value) } }
        for (name, value) in self where !ordered.contains(name: name) { ordered.append(name, value) }
        return ordered
    }
}
