import StrictJSON

/// Encodes any `Encodable` value into a ``JSONValue``, to be written with `JSONWriter`.
///
/// Foundation's `JSONEncoder` takes numbers only as `Double`, so a field value's exact
/// literal (a ``JSONNumber``) could not pass through it; here a `JSONValue` is stored
/// whole, and integers keep every digit. Keys come out sorted when written, except in
/// an object whose encoding asks for its own order (a ``FieldList``).
public enum JSONTreeEncoder {
    /// The value as a JSON tree; a value that encodes nothing is an empty object.
    /// A `JSONValue` object has no order: written, every object has its keys sorted.
    public static func encode(_ value: some Encodable) throws -> JSONValue {
        let root = TreeNode()
        try value.encode(to: TreeEncoder(node: root, codingPath: []))
        return root.resolved ?? .object([:])
    }

    /// The value as compact JSON: keys sorted, but a ``FieldList``'s fields in their
    /// order. Measured first, then written into an array of exactly that size; the
    /// caller zeroes it if it holds content.
    public static func bytes(_ value: some Encodable) throws -> [UInt8] {
        let root = TreeNode()
        try value.encode(to: TreeEncoder(node: root, codingPath: []))
        return JSONWriter.bytes { root.write(to: &$0) }
    }
}

/// An encoder that a `JSONValue` hands itself to, whole.
protocol JSONTreeSink {
    /// Stores `value` as the encoded value.
    func store(_ value: JSONValue)
    /// Makes the object being encoded keep its members in the order they are encoded.
    func keepMemberOrder()
}

/// One value under construction: containers are filled after they are handed out,
/// so a container and its parent share the node.
final class TreeNode {
    enum Content {
        case unset
        case value(JSONValue)
        case object([String: TreeNode])
        case array([TreeNode])
    }

    var content = Content.unset
    /// An object's keys in the order they were first encoded.
    var memberOrder: [String] = []
    /// Whether the object is written in `memberOrder` rather than with keys sorted.
    var keepsOrder = false

    /// The finished value; `nil` while nothing was stored.
    var resolved: JSONValue? {
        switch content {
        case .unset: nil
        case .value(let value): value
        case .object(let members): .object(members.mapValues { $0.resolved ?? .null })
        case .array(let items): .array(items.map { $0.resolved ?? .null })
        }
    }

    /// The node's members, making it an object if it is not one yet.
    func member(_ key: String) -> TreeNode {
        let child = TreeNode()
        if case .object(var members) = content {
            content = .unset
            if members.updateValue(child, forKey: key) == nil { memberOrder.append(key) }
            content = .object(members)
        } else {
            content = .object([key: child])
            memberOrder = [key]
        }
        return child
    }

    /// A new last element, making the node an array if it is not one yet.
    func appended() -> TreeNode {
        let child = TreeNode()
        if case .array(var items) = content {
            content = .unset
            items.append(child)
            content = .array(items)
        } else {
            content = .array([child])
        }
        return child
    }

    /// Writes the value: object keys sorted, unless `keepsOrder`.
    func write(to writer: inout JSONWriter) {
        switch content {
        case .unset: writer.null()
        case .value(let value): value.write(to: &writer)
        case .array(let items):
            writer.byte(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                item.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "]"))
        case .object(let members):
            writer.byte(UInt8(ascii: "{"))
            let keys = keepsOrder || writer.isCounting ? memberOrder : memberOrder.sorted()
            for (index, key) in keys.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.string(key)
                writer.byte(UInt8(ascii: ":"))
                members[key]!.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }

    /// The number of elements so far.
    var count: Int {
        switch content {
        case .object(let members): members.count
        case .array(let items): items.count
        default: 0
        }
    }
}

private struct TreeEncoder: Encoder, JSONTreeSink {
    let node: TreeNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func store(_ value: JSONValue) { node.content = .value(value) }
    func keepMemberOrder() { node.keepsOrder = true }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([:]); node.memberOrder = [] }
        return KeyedEncodingContainer(TreeKeyedEncoder<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return TreeUnkeyedEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        TreeSingleEncoder(node: node, codingPath: codingPath)
    }
}

/// Puts a primitive or any `Encodable` into `node`.
private func put(_ value: some Encodable, into node: TreeNode, at path: [any CodingKey]) throws {
    switch value {
    case let text as String: node.content = .value(.string(text))
    case let flag as Bool: node.content = .value(.bool(flag))
    case let number as Double: node.content = .value(.number(try finite(number, at: path)))
    case let number as Float: node.content = .value(.number(try finite(Double(number), at: path)))
    case let number as Int: node.content = .value(.number(JSONNumber(number)))
    case let number as Int64: node.content = .value(.number(JSONNumber(number)))
    case let number as UInt64: node.content = .value(.number(JSONNumber(number)))
    case let number as UInt32: node.content = .value(.number(JSONNumber(number)))
    case let number as Int32: node.content = .value(.number(JSONNumber(number)))
    case let number as UInt: node.content = .value(.number(JSONNumber(number)))
    case let number as UInt8: node.content = .value(.number(JSONNumber(number)))
    case let number as UInt16: node.content = .value(.number(JSONNumber(number)))
    case let number as Int8: node.content = .value(.number(JSONNumber(number)))
    case let number as Int16: node.content = .value(.number(JSONNumber(number)))
    default: try value.encode(to: TreeEncoder(node: node, codingPath: path))
    }
}

/// A `Double` that JSON can spell; NaN and the infinities are refused, as `JSONEncoder` does.
private func finite(_ value: Double, at path: [any CodingKey]) throws -> JSONNumber {
    guard value.isFinite else {
        throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: path, debugDescription: "not a finite number"))
    }
    return JSONNumber(value)
}

private struct TreeKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: TreeNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try put(value, into: node.member(key.stringValue), at: codingPath + [key])
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, into: node.member(key.stringValue), at: codingPath + [key]) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct TreeUnkeyedEncoder: UnkeyedEncodingContainer {
    let node: TreeNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private var path: [any CodingKey] { codingPath + [TreeIndexKey(node.count)] }

    mutating func encodeNil() throws { node.appended().content = .value(.null) }
    mutating func encode(_ value: some Encodable) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: Bool) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: String) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: Double) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: Float) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: Int) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: Int8) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: Int16) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: Int32) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: Int64) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: UInt) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: UInt8) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: UInt16) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: UInt32) throws { let at = path; try put(value, into: node.appended(), at: at) }
    mutating func encode(_ value: UInt64) throws { let at = path; try put(value, into: node.appended(), at: at) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let at = path
        return TreeEncoder(node: node.appended(), codingPath: at).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let at = path
        return TreeEncoder(node: node.appended(), codingPath: at).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { let at = path; return TreeEncoder(node: node.appended(), codingPath: at) }
}

private struct TreeSingleEncoder: SingleValueEncodingContainer {
    let node: TreeNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: some Encodable) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: Bool) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: String) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: Double) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: Float) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: Int) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: Int8) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: Int16) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: Int32) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: Int64) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: UInt) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: UInt8) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: UInt16) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: UInt32) throws { try put(value, into: node, at: codingPath) }
    mutating func encode(_ value: UInt64) throws { try put(value, into: node, at: codingPath) }
}

/// An array index as a coding key, for error paths.
struct TreeIndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.init(intValue) }
}
