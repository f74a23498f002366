/// An object's key as `JSONReader.readObjectMatching` hands it: its bytes where they
/// stand in the document, or, for a key written with escapes, unescaped. A reader that
/// knows its keys matches them with `switch` on string literals (`case "date":`) and
/// makes no `String` for the usual key.
public struct JSONKey {
    /// The key's bytes between its quotes, when it has no escapes.
    @usableFromInline let bytes: UnsafeRawBufferPointer?
    /// The key unescaped, when it has escapes.
    @usableFromInline let unescaped: String?

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        unescaped = nil
    }

    init(unescaped: String) {
        bytes = nil
        self.unescaped = unescaped
    }

    /// The key as text, for a message about it.
    public var text: String {
        unescaped ?? String(decoding: bytes!, as: UTF8.self)
    }

    /// Whether the key is `name`. Inlined into a reader's `switch`: the length first,
    /// then the bytes, so most keys that differ are told apart at once.
    @inlinable
    public static func == (key: JSONKey, name: StaticString) -> Bool {
        guard let bytes = key.bytes else { return key.unescaped!.utf8.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)) }
        let count = name.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let expected = name.utf8Start
        for index in 0..<count where bytes[index] != expected[index] { return false }
        return true
    }

    /// `case "date":` in a `switch` over a key.
    @inlinable
    public static func ~= (name: StaticString, key: JSONKey) -> Bool {
        key == name
    }
}
