/// Decodes any `Decodable` value from a ``JSONValue`` read with `JSONReader`.
///
/// Foundation's `JSONDecoder` hands numbers over only as `Double`, so a field value's
/// exact literal would be rounded on the way; here a `JSONValue` member is taken whole
/// (numbers as their text), and integers are read from their digits, refusing rather
/// than rounding those that do not fit.
public enum JSONTreeDecoder {
    /// Decodes `type` from `value`.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: TreeDecoder(value: value, codingPath: []))
    }
}

/// A decoder that holds a whole `JSONValue`, for `JSONValue.init(from:)` to take.
protocol JSONTreeSource {
    /// The value being decoded.
    var treeValue: JSONValue { get }
}

private struct TreeDecoder: Decoder, JSONTreeSource {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var treeValue: JSONValue { value }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(TreeKeyedDecoder<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return TreeUnkeyedDecoder(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TreeSingleDecoder(value: value, codingPath: codingPath)
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    DecodingError.typeMismatch(type, DecodingError.Context(codingPath: path, debugDescription: "found \(value.kindName)"))
}

extension JSONValue {
    /// The kind's name, for error messages (never the value: it may be content).
    fileprivate var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Reads `type` from `value`: primitives directly, anything else through its `init(from:)`.
private func take<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
    switch type {
    case is String.Type:
        guard case .string(let text) = value else { throw mismatch(type, value, path) }
        return text as! T
    case is Bool.Type:
        guard case .bool(let flag) = value else { throw mismatch(type, value, path) }
        return flag as! T
    case is Double.Type: return try number(value, at: path).doubleValue as! T
    case is Float.Type: return Float(try number(value, at: path).doubleValue) as! T
    case is Int.Type: return try integer(Int.self, value, at: path) as! T
    case is Int8.Type: return try integer(Int8.self, value, at: path) as! T
    case is Int16.Type: return try integer(Int16.self, value, at: path) as! T
    case is Int32.Type: return try integer(Int32.self, value, at: path) as! T
    case is Int64.Type: return try integer(Int64.self, value, at: path) as! T
    case is UInt.Type: return try integer(UInt.self, value, at: path) as! T
    case is UInt8.Type: return try integer(UInt8.self, value, at: path) as! T
    case is UInt16.Type: return try integer(UInt16.self, value, at: path) as! T
    case is UInt32.Type: return try integer(UInt32.self, value, at: path) as! T
    case is UInt64.Type: return try integer(UInt64.self, value, at: path) as! T
    default: return try T(from: TreeDecoder(value: value, codingPath: path))
    }
}

private func number(_ value: JSONValue, at path: [any CodingKey]) throws -> JSONNumber {
    guard case .number(let number) = value else { throw mismatch(Double.self, value, path) }
    return number
}

/// An integer from its digits (`3`, `-0`); a fraction, an exponent or one out of range is refused.
private func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, at path: [any CodingKey]) throws -> I {
    let text = try number(value, at: path).text
    guard let parsed = I(text) ?? (text == "-0" ? 0 : nil) else {
        throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: "not an integer that fits \(type)"))
    }
    return parsed
}

private struct TreeKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try take(type, from: member(key), at: codingPath + [key])
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try take(type, from: member(key), at: codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try take(type, from: member(key), at: codingPath + [key]) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder { TreeDecoder(value: members["super"] ?? .null, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct TreeUnkeyedDecoder: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next<T>(_ type: T.Type) throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: codingPath, debugDescription: "no more elements"))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], codingPath + [TreeIndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: String.Type) throws -> String { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (value, path) = try next(type); return try take(type, from: value, at: path) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (value, path) = try next(type); return try take(type, from: value, at: path) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: JSONValue].self)
        return try TreeDecoder(value: value, codingPath: path).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([JSONValue].self)
        return try TreeDecoder(value: value, codingPath: path).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(JSONValue.self)
        return TreeDecoder(value: value, codingPath: path)
    }
}

private struct TreeSingleDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try take(type, from: value, at: codingPath) }
    func decode(_ type: Bool.Type) throws -> Bool { try take(type, from: value, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try take(type, from: value, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try take(type, from: value, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try take(type, from: value, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try take(type, from: value, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try take(type, from: value, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try take(type, from: value, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try take(type, from: value, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try take(type, from: value, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try take(type, from: value, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try take(type, from: value, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try take(type, from: value, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try take(type, from: value, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try take(type, from: value, at: codingPath) }
}
