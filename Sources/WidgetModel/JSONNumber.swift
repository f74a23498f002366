import StrictJSON

/// A JSON number as its literal text: a field's value is served exactly as its provider
/// sent it (DESIGN: values leave unchanged), so `123456789012345678901234567890`, `-0`, `1E5` and `0.10` are
/// kept digit for digit, never turned into the nearest `Double`.
///
/// The text is always a number by RFC 8259's grammar whose magnitude a `Double` can
/// hold: `1e400` has no `JSONNumber` (a reader of doubles would see infinity), and
/// neither have NaN and the infinities. Two numbers are equal when their texts are:
/// `1` and `1.0` differ, as the bytes a host is shown do.
public struct JSONNumber: Sendable, Hashable {
    /// The literal, as JSON text.
    public let text: String

    /// The number `text` spells, or `nil` when it is not one JSON number (with nothing
    /// around it) or is beyond a `Double`'s range.
    public init?(_ text: String) {
        var copy = text
        let valid = copy.withUTF8 { utf8 -> Bool in
            var reader = JSONReader(UnsafeRawBufferPointer(utf8))
            guard (try? reader.readNumberText()) != nil, reader.offset == utf8.count else { return false }
            return true
        }
        guard valid else { return nil }
        self.text = text
    }

    /// A number read by `JSONReader.readNumberText()`, which checked the text.
    init(checked text: String) {
        self.text = text
    }

    /// A finite `Double`, in the shortest text that reads back to it (`JSONWriter.text(of:)`).
    /// A non-finite value has no JSON form: passing one is a programming error.
    public init(_ value: Double) {
        text = JSONWriter.text(of: value)
    }

    /// An integer, in all its digits.
    public init(_ value: some BinaryInteger) {
        text = String(value)
    }

    /// The nearest `Double`: for code that computes with the number, never for serving it.
    public var doubleValue: Double {
        // The text passed the reader's range check, so it converts to a finite value.
        Double(text)!
    }
}

extension JSONNumber: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// An integer literal in Swift source, e.g. `.number(3)`.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// A floating-point literal in Swift source, e.g. `.number(21.5)`.
    public init(floatLiteral value: Double) {
        self.init(value)
    }
}

extension JSONNumber: CustomStringConvertible {
    /// The literal text.
    public var description: String { text }
}
