/// A strict, allocation-light JSON reader over bytes the caller owns (RFC 8259).
///
/// It reads in place, one value at a time, so a caller decodes straight into its own
/// types with no intermediate tree and no `Foundation`. It accepts only JSON text:
/// the exact number grammar, no control characters in strings, valid UTF-8, escapes
/// whose surrogates pair up, and at most ``maximumDepth`` nested arrays and objects.
/// Duplicate keys are the caller's to reject: `readObject` hands every key over.
///
/// The bytes may be a decrypted body: the reader keeps no copy of them except the
/// `String`s it returns, and zeroes the scratch it needs for strings with escapes.
public struct JSONReader {
    /// How deep arrays and objects may nest, as `JSONDecoder` allows.
    public static let maximumDepth = 512

    /// The kinds of JSON value, told apart by their first byte.
    public enum ValueKind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    /// The whole document.
    public let bytes: UnsafeRawBufferPointer
    /// Where the next byte is read.
    public private(set) var offset: Int
    private var depth = 0
    /// Whether the bytes were already checked as JSON text, so that strings need not be
    /// checked for UTF-8 again (see ``init(validated:)``).
    private let isValidated: Bool

    /// A reader at the start of `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) {
        self.init(bytes, isValidated: false)
    }

    /// A reader at the start of `bytes` that this reader has already checked as JSON text
    /// (``validate(_:)``, or ``skipValue()`` over them, as a Varlink call's envelope scan
    /// does for its parameters): the reader then does not check strings for UTF-8 a second
    /// time, which is most of what walking a message twice costs. Every other check stays.
    /// Bytes that were not checked must not come here: an invalid sequence would then be
    /// read as U+FFFD instead of refused.
    public init(validated bytes: UnsafeRawBufferPointer) {
        self.init(bytes, isValidated: true)
    }

    /// A reader at the start of `bytes`, a value nested `depth` arrays and objects deep
    /// in an enclosing document (a Varlink call's parameters: depth 1), so that the
    /// nesting limit counts the enclosing levels as reading the whole document would.
    public init(_ bytes: UnsafeRawBufferPointer, depth: Int) {
        self.init(bytes, isValidated: false)
        self.depth = depth
    }

    private init(_ bytes: UnsafeRawBufferPointer, isValidated: Bool) {
        self.bytes = bytes
        self.offset = 0
        self.isValidated = isValidated
    }

    /// A reader over the same document, at `offset` (a value start this reader found).
    public func reader(at offset: Int) -> JSONReader {
        var copy = self
        copy.offset = offset
        return copy
    }

    // MARK: Whole documents

    /// Checks that the bytes are exactly one JSON value (with whitespace around it).
    public static func validate(_ bytes: UnsafeRawBufferPointer) throws(JSONReadError) {
        var reader = JSONReader(bytes)
        try reader.skipValue()
        try reader.expectEnd()
    }

    /// Throws unless only whitespace is left.
    public mutating func expectEnd() throws(JSONReadError) {
        skipWhitespace()
        guard offset == bytes.count else { throw syntax("unexpected bytes after the value") }
    }

    // MARK: Values

    /// The kind of the next value, after whitespace; the reader then stands on its first byte.
    public mutating func peek() throws(JSONReadError) -> ValueKind {
        skipWhitespace()
        guard offset < bytes.count else { throw syntax("unexpected end") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: throw syntax("unexpected byte")
        }
    }

    /// Reads `null` if it comes next and says so; otherwise reads nothing.
    public mutating func readNull() throws(JSONReadError) -> Bool {
        guard try peek() == .null else { return false }
        try literal("null")
        return true
    }

    /// Reads `true` or `false`.
    public mutating func readBool() throws(JSONReadError) -> Bool {
        let kind = try peek()
        guard kind == .bool else { throw mismatch(kind, "true or false") }
        if bytes[offset] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// Reads a number. One outside `Double`'s range is a mismatch (`is malformed`), as
    /// `JSONDecoder` refuses it too.
    public mutating func readNumber() throws(JSONReadError) -> Double {
        let kind = try peek()
        guard kind == .number else { throw mismatch(kind, "a number") }
        let start = offset
        let (isInteger, digits) = try scanNumber()
        if isInteger, digits <= 15 { return exactSmallInteger(from: start) }
        var text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        let value = Double(text)
        // The digits may be decrypted content: a text longer than a small string's 15
        // bytes lives on the heap, and this copy is ours alone, so zero it before release.
        Self.zero(&text)
        guard let value, value.isFinite else { throw JSONReadError.mismatch(at: start, "is malformed") }
        return value
    }

    /// Reads a number as its literal text, byte for byte as written (`1E5`, `-0`, `0.10`
    /// and 30-digit integers stay as they are), for values that must be served exactly as
    /// they were sent. One whose magnitude a `Double` cannot hold (`1e400`) is a mismatch
    /// (`is malformed`), as in ``readNumber()``: a reader of doubles would see infinity.
    public mutating func readNumberText() throws(JSONReadError) -> String {
        let kind = try peek()
        guard kind == .number else { throw mismatch(kind, "a number") }
        let start = offset
        let (isInteger, digits) = try scanNumber()
        var text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        // Up to 15 digits an integer is well inside the range; otherwise ask strtod.
        if !(isInteger && digits <= 15), !(Double(text)?.isFinite ?? false) {
            Self.zero(&text)
            throw JSONReadError.mismatch(at: start, "is malformed")
        }
        return text
    }

    /// The integer of at most 15 digits just scanned from `start`: exact in a `Double`,
    /// so no text conversion is needed.
    private func exactSmallInteger(from start: Int) -> Double {
        let negative = bytes[start] == UInt8(ascii: "-")
        var value = 0
        for index in (start + (negative ? 1 : 0))..<offset { value = value * 10 + Int(bytes[index] &- 48) }
        return negative ? -Double(value) : Double(value)
    }

    /// Zeroes a string's own storage before it is released (a copy of content).
    private static func zero(_ text: inout String) {
        text.withUTF8 { utf8 in
            SecretWipe.zero(UnsafeMutableRawBufferPointer(mutating: UnsafeRawBufferPointer(utf8)))
        }
    }

    /// Reads a string, unescaped and checked (valid UTF-8, paired surrogates).
    public mutating func readString() throws(JSONReadError) -> String {
        let kind = try peek()
        guard kind == .string else { throw mismatch(kind, "a string") }
        return try scanString(decode: true)
    }

    /// Reads an object, calling `member` with each key and the reader standing before
    /// the member's value, which `member` must read or skip.
    public mutating func readObject(
        _ member: (inout JSONReader, String) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        let kind = try peek()
        guard kind == .object else { throw mismatch(kind, "an object") }
        guard try open(closedBy: UInt8(ascii: "}")) else { return }
        repeat {
            let key = try memberKey(decode: true)
            try member(&self, key)
        } while try nextElement(closedBy: UInt8(ascii: "}"))
    }

    /// Reads an array, calling `element` with the reader before each element (which it
    /// must read or skip) and the element's index.
    public mutating func readArray(
        _ element: (inout JSONReader, Int) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        let kind = try peek()
        guard kind == .array else { throw mismatch(kind, "an array") }
        guard try open(closedBy: UInt8(ascii: "]")) else { return }
        var index = 0
        repeat {
            try element(&self, index)
            index += 1
        } while try nextElement(closedBy: UInt8(ascii: "]"))
    }

    // MARK: In place

    // Readers that hand back the bytes of a string, key or number where they stand in
    // the document, checked as the readers above check them, for a caller that copies
    // them on (into secure memory) with no `String` in between.

    /// Reads a string with no escapes and returns its bytes between the quotes; nil,
    /// the reader unmoved, for a string with escapes (`readString` unescapes those).
    public mutating func readUnescapedString() throws(JSONReadError) -> UnsafeRawBufferPointer? {
        let kind = try peek()
        guard kind == .string else { throw mismatch(kind, "a string") }
        return try scanUnescaped()
    }

    /// Reads an object as `readObject` does, handing `member` each key's bytes (nil
    /// for a key with escapes, which is checked all the same).
    public mutating func readObjectInPlace(
        _ member: (inout JSONReader, UnsafeRawBufferPointer?) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        try readObjectMatching { (reader, key) throws(JSONReadError) in try member(&reader, key.bytes) }
    }

    /// Reads an object as `readObject` does, handing `member` each key as a `JSONKey`:
    /// its bytes in place, unescaped only when it has escapes.
    public mutating func readObjectMatching(
        _ member: (inout JSONReader, JSONKey) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        let kind = try peek()
        guard kind == .object else { throw mismatch(kind, "an object") }
        guard try open(closedBy: UInt8(ascii: "}")) else { return }
        repeat {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw syntax("expected a key") }
            let key =
                if let raw = try scanUnescaped() { JSONKey(bytes: raw) } else { JSONKey(unescaped: try scanString(decode: true)) }
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw syntax("expected ':'") }
            offset += 1
            try member(&self, key)
        } while try nextElement(closedBy: UInt8(ascii: "}"))
    }

    /// Reads a number and returns its literal bytes, with `readNumberText`'s checks
    /// (one beyond a `Double`'s range is a mismatch, `is malformed`).
    public mutating func readNumberBytes() throws(JSONReadError) -> UnsafeRawBufferPointer {
        let kind = try peek()
        guard kind == .number else { throw mismatch(kind, "a number") }
        let start = offset
        let (isInteger, digits) = try scanNumber()
        let literal = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
        if !(isInteger && digits <= 15), !Self.isWithinDoubleRange(literal) {
            throw JSONReadError.mismatch(at: start, "is malformed")
        }
        return literal
    }

    /// Whether a number literal (of the JSON grammar) is finite as a `Double`: at once
    /// when its decimal exponent is well inside the range, else as `strtod` says.
    private static func isWithinDoubleRange(_ literal: UnsafeRawBufferPointer) -> Bool {
        var index = literal[0] == UInt8(ascii: "-") ? 1 : 0
        var integerDigits = 0
        while index < literal.count, literal[index] &- UInt8(ascii: "0") < 10 {
            integerDigits += 1
            index += 1
        }
        while index < literal.count, literal[index] | 0x20 != UInt8(ascii: "e") { index += 1 }
        var exponent = 0
        if index < literal.count {
            index += 1
            var negative = false
            if literal[index] == UInt8(ascii: "+") || literal[index] == UInt8(ascii: "-") {
                negative = literal[index] == UInt8(ascii: "-")
                index += 1
            }
            // More than four exponent digits: not decided here.
            guard literal.count - index <= 4 else { return isFiniteByConversion(literal) }
            while index < literal.count {
                exponent = exponent * 10 + Int(literal[index] &- UInt8(ascii: "0"))
                index += 1
            }
            if negative { exponent = -exponent }
        }
        // Below 10^300 in magnitude (underflow to zero is finite).
        if integerDigits + exponent <= 300 { return true }
        return isFiniteByConversion(literal)
    }

    private static func isFiniteByConversion(_ literal: UnsafeRawBufferPointer) -> Bool {
        var text = String(decoding: literal, as: UTF8.self)
        defer { zero(&text) }
        return Double(text)?.isFinite ?? false
    }

    /// Scans a string from its opening quote as `scanString` does; nil, the reader back
    /// on the quote, when it has an escape.
    private mutating func scanUnescaped() throws(JSONReadError) -> UnsafeRawBufferPointer? {
        let quote = offset
        offset += 1
        let start = offset
        while offset < bytes.count {
            offset = JSONByteScan.firstSpecial(in: bytes, from: offset)
            guard offset < bytes.count else { break }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
                offset += 1
                guard isValidated || Self.isValidUTF8(raw) else { throw JSONReadError(.syntax, at: start, "invalid UTF-8") }
                return raw
            }
            if byte == UInt8(ascii: "\\") {
                offset = quote
                return nil
            }
            guard byte >= 0x20 else { throw syntax("control character in a string") }
            offset += 1
        }
        throw syntax("unterminated string")
    }

    /// Enters the object or array the reader stands on; `false` (and left again) when
    /// it is empty.
    private mutating func open(closedBy close: UInt8) throws(JSONReadError) -> Bool {
        try enter()
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == close else { return true }
        offset += 1
        depth -= 1
        return false
    }

    /// Reads a member's key and its `:`; the key is a `String` only if `decode`.
    private mutating func memberKey(decode: Bool) throws(JSONReadError) -> String {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw syntax("expected a key") }
        let key = try scanString(decode: decode)
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw syntax("expected ':'") }
        offset += 1
        return key
    }

    /// After a member or element: `true` past a `,` (another follows), `false` past the
    /// container's closing `close` (and out of it).
    private mutating func nextElement(closedBy close: UInt8) throws(JSONReadError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw syntax("unexpected end") }
        if bytes[offset] == UInt8(ascii: ",") {
            offset += 1
            return true
        }
        guard bytes[offset] == close else {
            throw syntax(close == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
        }
        offset += 1
        depth -= 1
        return false
    }

    /// Reads and checks one value of any kind, keeping nothing of it.
    public mutating func skipValue() throws(JSONReadError) {
        switch try peek() {
        case .object: try skipObject()
        case .array: try readArray { (reader, _) throws(JSONReadError) in try reader.skipValue() }
        case .string: _ = try scanString(decode: false)
        case .number: _ = try scanNumber()
        case .bool: _ = try readBool()
        case .null: try literal("null")
        }
    }

    /// `readObject` with every member skipped, its keys only checked: no `String` is
    /// made for a key nobody reads (the envelope scan skips whole parameter objects).
    /// The same checks, in the same order, with the same errors as `readObject`.
    private mutating func skipObject() throws(JSONReadError) {
        guard try open(closedBy: UInt8(ascii: "}")) else { return }
        repeat {
            _ = try memberKey(decode: false)
            try skipValue()
        } while try nextElement(closedBy: UInt8(ascii: "}"))
    }

    /// The message a mismatch of `kind` against `expected` ("a string", …) reads as,
    /// in the words `InvalidTimeline` has always used.
    public func mismatch(_ kind: ValueKind, _ expected: String) -> JSONReadError {
        JSONReadError.mismatch(at: offset, kind == .null ? "is null; expected \(expected)" : "expected \(expected)")
    }

    // MARK: Paths

    /// The path from the root of `bytes` to the value starting at `target` (an offset a
    /// `JSONReadError` carries). The document must be valid JSON up to `target`.
    public static func path(to target: Int, in bytes: UnsafeRawBufferPointer) -> [JSONPathComponent] {
        var reader = JSONReader(bytes)
        var path: [JSONPathComponent] = []
        reader.locate(target, path: &path)
        return path
    }

    /// Descends towards `target`, appending each step to `path`; stops at the deepest
    /// value that starts at or contains `target`.
    private mutating func locate(_ target: Int, path: inout [JSONPathComponent]) {
        guard let kind = try? peek(), offset < target else { return }
        var next: (component: JSONPathComponent, offset: Int)?
        func consider(_ reader: inout JSONReader, _ component: JSONPathComponent) throws(JSONReadError) {
            reader.skipWhitespace()
            let start = reader.offset
            if start > target { throw JSONReadError(.syntax, at: start, "passed") }
            // A value that cannot be skipped is broken after the target: the target is inside.
            let skipped = Result { () throws(JSONReadError) in try reader.skipValue() }
            if case .failure = skipped { next = (component, start); throw JSONReadError(.syntax, at: start, "found") }
            if reader.offset > target { next = (component, start); throw JSONReadError(.syntax, at: start, "found") }
        }
        switch kind {
        case .object: _ = try? readObject { (reader, key) throws(JSONReadError) in try consider(&reader, .key(key)) }
        case .array: _ = try? readArray { (reader, index) throws(JSONReadError) in try consider(&reader, .index(index)) }
        default: return
        }
        guard let next else { return }
        path.append(next.component)
        var inner = reader(at: next.offset)
        inner.locate(target, path: &path)
    }

    // MARK: Scanning

    private mutating func enter() throws(JSONReadError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw syntax("nests deeper than \(Self.maximumDepth) levels") }
        offset += 1
    }

    private func syntax(_ message: String) -> JSONReadError {
        JSONReadError(.syntax, at: offset, message)
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count,
            memcmpEqual(word.utf8Start, offset, count)
        else { throw syntax("unexpected byte") }
        offset += count
    }

    private func memcmpEqual(_ word: UnsafePointer<UInt8>, _ at: Int, _ count: Int) -> Bool {
        for index in 0..<count where bytes[at + index] != word[index] { return false }
        return true
    }

    /// Scans a number by the JSON grammar; says whether it is an integer and how many digits it has.
    private mutating func scanNumber() throws(JSONReadError) -> (isInteger: Bool, digits: Int) {
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let firstDigit = offset
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw syntax("expected a digit") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        let digits = offset - firstDigit
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw syntax("expected a digit") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw syntax("expected a digit") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        return (isInteger, digits)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// Scans a string from its opening quote; returns it decoded when `decode` is set.
    private mutating func scanString(decode: Bool) throws(JSONReadError) -> String {
        offset += 1
        let start = offset
        // Fast path: no escapes; UTF-8 is checked by isValidUTF8.
        while offset < bytes.count {
            offset = JSONByteScan.firstSpecial(in: bytes, from: offset)
            guard offset < bytes.count else { break }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
                offset += 1
                guard isValidated || Self.isValidUTF8(raw) else { throw JSONReadError(.syntax, at: start, "invalid UTF-8") }
                // Only checked: no String is made for a value that is skipped.
                guard decode else { return "" }
                return Self.string(checkedUTF8: raw)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw syntax("control character in a string") }
            offset += 1
        }
        guard offset < bytes.count else { throw syntax("unterminated string") }
        return try scanEscapedString(from: start)
    }

    /// A `String` of bytes `isValidUTF8` accepted. `String(validating:as:)` is generic
    /// over the encoding and, called from here, looked up its metadata at run time on
    /// every string (≈ 20% of a `PutTimeline`'s decode in `perf`); `String(decoding:)`
    /// over bytes is the standard library's specialised UTF-8 path, and repairs nothing
    /// since the bytes are already known to be valid.
    private static func string(checkedUTF8 bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    /// Whether `bytes` are well-formed UTF-8 (RFC 3629: no overlong forms, no
    /// surrogates, nothing past U+10FFFF), with a fast path for ASCII.
    public static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            index = JSONByteScan.firstNonASCII(in: bytes, from: index)
            guard index < count else { break }
            let lead = bytes[index]
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return false
            }
            guard count - index >= length else { return false }
            let second = bytes[index + 1]
            guard second >= lower, second <= upper else { return false }
            for next in (index + 2)..<(index + length) where bytes[next] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }

    /// Skips one value of a document already checked with `validate` (or the envelope
    /// scan), looking only at quotes, escapes and brackets: for locating members again.
    public mutating func skipCheckedValue() throws(JSONReadError) {
        let kind = try peek()
        switch kind {
        case .string:
            offset += 1
            while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
                offset += bytes[offset] == UInt8(ascii: "\\") ? 2 : 1
            }
            offset += 1
        case .object, .array:
            var depth = 0
            repeat {
                switch bytes[offset] {
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; offset += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; offset += 1
                case UInt8(ascii: "\""):
                    offset += 1
                    while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
                        offset += bytes[offset] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    offset += 1
                default: offset += 1
                }
            } while depth > 0 && offset < bytes.count
            guard depth == 0 else { throw syntax("unexpected end") }
        case .number, .bool, .null:
            while offset < bytes.count {
                switch bytes[offset] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: return
                default: offset += 1
                }
            }
        }
        guard offset <= bytes.count else { throw syntax("unexpected end") }
    }

    /// Skips the object or array the reader stands on looking only at brackets, quotes
    /// and escapes, for bytes that are checked later as a whole (a Varlink call's
    /// parameters, checked by the walk that decodes them): it finds where the value ends
    /// in valid JSON text, and checks nothing else. It stays inside the bytes, and
    /// throws a syntax error when the value is not closed or nests deeper than
    /// ``maximumDepth`` (counting the levels the reader is in), which the full check
    /// would throw too.
    public mutating func skipUncheckedContainer() throws(JSONReadError) {
        let kind = try peek()
        guard kind == .object || kind == .array else { throw mismatch(kind, "an object or an array") }
        let count = bytes.count
        var level = 0
        repeat {
            switch bytes[offset] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                level += 1
                guard depth + level <= Self.maximumDepth else { throw syntax("nests deeper than \(Self.maximumDepth) levels") }
                offset += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                level -= 1
                offset += 1
            case UInt8(ascii: "\""):
                offset += 1
                while true {
                    offset = JSONByteScan.firstSpecial(in: bytes, from: offset)
                    guard offset < count else { throw syntax("unterminated string") }
                    let byte = bytes[offset]
                    if byte == UInt8(ascii: "\"") { break }
                    // An escape's next byte is never the string's end; a control
                    // character is refused by the full check, here passed over.
                    offset += byte == UInt8(ascii: "\\") ? 2 : 1
                }
                offset += 1
            default:
                offset += 1
            }
        } while level > 0 && offset < count
        guard level == 0 else { throw syntax("unexpected end") }
    }

    /// The slow path: a string with escapes, unescaped into scratch that is zeroed after.
    private mutating func scanEscapedString(from start: Int) throws(JSONReadError) -> String {
        var scratch: [UInt8] = []
        scratch.reserveCapacity(offset - start + 16)
        defer { SecretWipe.zero(&scratch) }
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                let text = scratch.withUnsafeBytes { isValidated || Self.isValidUTF8($0) ? Self.string(checkedUTF8: $0) : nil }
                guard let text else { throw JSONReadError(.syntax, at: start, "invalid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                offset += 1
                guard offset < bytes.count else { throw syntax("unterminated string") }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(to: &scratch)
                default: throw syntax("unknown escape")
                }
            default:
                guard byte >= 0x20 else { throw syntax("control character in a string") }
                scratch.append(byte)
                offset += 1
            }
        }
        throw syntax("unterminated string")
    }

    /// Reads the four hex digits after `\u` (and a low surrogate's after a high one).
    private mutating func appendUnicodeEscape(to scratch: inout [UInt8]) throws(JSONReadError) {
        var scalar = try hex4()
        if 0xD800...0xDBFF ~= scalar {
            guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else { throw syntax("lone surrogate") }
            offset += 2
            let low = try hex4()
            guard 0xDC00...0xDFFF ~= low else { throw syntax("lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if 0xDC00...0xDFFF ~= scalar {
            throw syntax("lone surrogate")
        }
        let encoded = JSONUnescape.utf8(scalar)
        withUnsafeBytes(of: encoded.bytes) { scratch.append(contentsOf: $0.prefix(encoded.count)) }
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw syntax("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = JSONUnescape.hexDigit(bytes[offset]) else { throw syntax("invalid \\u escape") }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }
}
