/// An entry's or placeholder's fields by name, in the order their provider gave them
/// (the text order of the `fields` object): hosts draw fields in this order.
///
/// Names are unique. An entry has few fields (at most `maxFieldsPerEntry`), so a lookup
/// by name is a linear scan; only redaction looks fields up by name. Two lists are equal
/// when they hold the same fields in the same order: a reordering changes what is drawn.
public struct FieldList<Value: Sendable & Hashable>: Sendable, Hashable {
    /// One named field.
    public typealias Element = (name: String, value: Value)

    private var names: [String]
    private var values: [Value]

    /// No fields.
    public init() {
        names = []
        values = []
    }

    /// The fields of `pairs`, in their order; a name given twice is a programming error.
    public init(_ pairs: some Sequence<(String, Value)>) {
        self.init()
        for (name, value) in pairs {
            precondition(index(of: name) == nil, "field name given twice")
            append(name, value)
        }
    }

    /// The fields of `dictionary`, names sorted: a dictionary has no order of its own.
    public init(sorting dictionary: [String: Value]) {
        self.init()
        for name in dictionary.keys.sorted() { append(name, dictionary[name]!) }
    }

    /// The names, in order.
    public var keys: [String] { names }

    /// Where `name` is, if present.
    public func index(of name: String) -> Int? {
        names.firstIndex(of: name)
    }

    /// Whether a field is named `name`.
    public func contains(name: String) -> Bool { index(of: name) != nil }

    /// Adds a field at the end; the caller has checked that `name` is new.
    public mutating func append(_ name: String, _ value: Value) {
        names.append(name)
        values.append(value)
    }

    /// The field named `name`; setting one that exists replaces it in place, setting a
    /// new one appends it, setting nil removes it.
    public subscript(name: String) -> Value? {
        get { index(of: name).map { values[$0] } }
        set {
            switch (index(of: name), newValue) {
            case (let at?, let value?): values[at] = value
            case (let at?, nil): names.remove(at: at); values.remove(at: at)
            case (nil, let value?): append(name, value)
            case (nil, nil): break
            }
        }
    }

    /// The same names in the same order, each value transformed.
    public func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> FieldList<T> {
        var mapped = FieldList<T>()
        mapped.names = names
        mapped.values = try values.map(transform)
        return mapped
    }

    /// The fields as a dictionary, order dropped.
    public var dictionary: [String: Value] {
        Dictionary(uniqueKeysWithValues: zip(names, values))
    }
}

extension FieldList: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { names.count }
    public subscript(position: Int) -> Element { (names[position], values[position]) }
}

extension FieldList: ExpressibleByDictionaryLiteral {
    /// The fields in the literal's order.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(elements)
    }
}

extension FieldList: CustomStringConvertible {
    public var description: String {
        "[" + zip(names, values).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
    }
}

extension FieldList: Codable where Value: Codable {
    /// Decodes an object of fields. A `Decoder` hands keys over in no set order, so they
    /// are sorted; the daemon reads fields in text order with `JSONReader` instead.
    public init(from decoder: any Decoder) throws {
        self.init(sorting: try [String: Value](from: decoder))
    }

    /// Encodes an object of fields in order; into a ``JSONTreeEncoder`` the order is kept
    /// when written, where every other object has its keys sorted.
    public func encode(to encoder: any Encoder) throws {
        if let tree = encoder as? any JSONTreeSink { tree.keepMemberOrder() }
        var container = encoder.container(keyedBy: FieldName.self)
        for (name, value) in zip(names, values) {
            try container.encode(value, forKey: FieldName(stringValue: name))
        }
    }
}

/// A field name as a coding key.
struct FieldName: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
