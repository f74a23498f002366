import FoundationEssentials
import StrictJSON

// Decoding the timeline model straight from JSON bytes with `JSONReader`: no
// `JSONDecoder`, no intermediate tree. Every type rejects what its `Codable` decoding
// rejects (unknown keys, wrong types, bad dates, unknown privacy values) with the same
// messages, and also duplicate keys. Members are read in document order, so when one
// object has several problems the first one in the text is named.

extension Timeline {
    /// Reads `{"entries": […], "policy"?: {…}}`; a missing or null policy is `atEnd`.
    /// Not validated against limits: `TimelineValidator` does that.
    public static func read(from reader: inout JSONReader) throws(JSONReadError) -> Timeline {
        var entries: [Entry] = []
        let policy = try walk(from: &reader) { (reader) throws(JSONReadError) in entries.append(try Entry.read(from: &reader)) }
        return Timeline(entries: entries, policy: policy ?? .atEnd)
    }

    /// Walks a timeline object with `read`'s checks (known keys, each once, `entries`
    /// required), handing each entry to `entry` where it stands and reading the policy
    /// (nil: absent or null). `read` decodes the entries, `TimelineExcerpt` their dates.
    static func walk(
        from reader: inout JSONReader, entry: (inout JSONReader) throws(JSONReadError) -> Void
    ) throws(JSONReadError) -> ReloadPolicy? {
        let start = try reader.objectStart()
        var hasEntries = false
        var policy: ReloadPolicy?
        var seen = SeenKeys(object: start)
        try reader.readObjectMatching { (reader, key) throws(JSONReadError) in
            switch key {
            case "entries":
                try seen.once(0, key)
                hasEntries = true
                try reader.readArray { (reader, _) throws(JSONReadError) in try entry(&reader) }
            case "policy":
                try seen.once(1, key)
                policy = try reader.readNull() ? nil : try ReloadPolicy.read(from: &reader)
            default:
                throw seen.unknown(key)
            }
        }
        guard hasEntries else { throw seen.missing("entries") }
        return policy
    }
}

extension Entry {
    /// Reads an array of entries (`entries` of a timeline or a request).
    public static func readArray(from reader: inout JSONReader) throws(JSONReadError) -> [Entry] {
        var entries: [Entry] = []
        try reader.readArray { (reader, _) throws(JSONReadError) in entries.append(try Entry.read(from: &reader)) }
        return entries
    }

    /// Reads `{"date": RFC 3339, "relevance"?: …, "fields": {…}, "actions"?: […]}`.
    public static func read(from reader: inout JSONReader) throws(JSONReadError) -> Entry {
        let start = try reader.objectStart()
        var relevance: Relevance?
        var fields: FieldList<Field>?
        var actions: [WidgetAction] = []
        let date = try walk(from: &reader) { (member, reader) throws(JSONReadError) in
            switch member {
            case .relevance: relevance = try reader.readNull() ? nil : try Relevance.read(from: &reader)
            case .fields: fields = try Field.readFields(from: &reader)
            case .actions: actions = try reader.readNull() ? [] : try WidgetAction.readArray(from: &reader)
            }
        }
        guard let fields else { throw SeenKeys(object: start).missing("fields") }
        return Entry(date: date, relevance: relevance, fields: fields, actions: actions)
    }

    /// An entry's members besides its date.
    enum Member {
        case relevance, fields, actions
    }

    /// Walks an entry object with `read`'s checks (known keys, each once, `date`
    /// required), reading the date and handing each other member to `member` where it
    /// stands, to read or to skip. `read` decodes them, `TimelineExcerpt` skips them.
    static func walk(
        from reader: inout JSONReader, _ member: (Member, inout JSONReader) throws(JSONReadError) -> Void
    ) throws(JSONReadError) -> Date {
        let start = try reader.objectStart()
        var date: Date?
        var seen = SeenKeys(object: start)
        try reader.readObjectMatching { (reader, key) throws(JSONReadError) in
            switch key {
            case "date":
                try seen.once(0, key)
                date = try reader.readRFC3339()
            case "relevance":
                try seen.once(1, key)
                try member(.relevance, &reader)
            case "fields":
                try seen.once(2, key)
                try member(.fields, &reader)
            case "actions":
                try seen.once(3, key)
                try member(.actions, &reader)
            default:
                throw seen.unknown(key)
            }
        }
        guard let date else { throw seen.missing("date") }
        return date
    }
}

extension Relevance {
    /// Reads `{"score": …, "duration": …}`.
    static func read(from reader: inout JSONReader) throws(JSONReadError) -> Relevance {
        let start = try reader.objectStart()
        var score: Double?
        var duration: Double?
        var seen = SeenKeys(object: start)
        try reader.readObjectMatching { (reader, key) throws(JSONReadError) in
            switch key {
            case "score":
                try seen.once(0, key)
                score = try reader.readNumber()
            case "duration":
                try seen.once(1, key)
                duration = try reader.readNumber()
            default:
                throw seen.unknown(key)
            }
        }
        guard let score else { throw seen.missing("score") }
        guard let duration else { throw seen.missing("duration") }
        return Relevance(score: score, duration: duration)
    }
}

extension Field {
    /// Reads a `fields` object: field names to `{"value": …, "privacy"?: …}`, kept in
    /// text order; a name given twice is refused.
    static func readFields(from reader: inout JSONReader) throws(JSONReadError) -> FieldList<Field> {
        let kind = try reader.peek()
        switch kind {
        case .object: break
        case .null: throw reader.mismatch(kind, "an object")
        default: throw JSONReadError.mismatch(at: reader.offset, "must be an object mapping field names to {\"value\": …}")
        }
        let start = reader.offset
        var fields = FieldList<Field>()
        // Names seen, for objects too long for a linear scan to stay cheap.
        var seen: Set<String>?
        try reader.readObject { (reader, name) throws(JSONReadError) in
            let field = try Field.read(from: &reader)
            if seen == nil, fields.count == 16 { seen = Set(fields.keys) }
            let repeated = if seen != nil { !seen!.insert(name).inserted } else { fields.contains(name: name) }
            guard !repeated else {
                throw JSONReadError.mismatch(at: start, "duplicate field name \(ModelPath.quote(name))")
            }
            fields.append(name, field)
        }
        return fields
    }

    /// Reads `{"value": any JSON, "privacy"?: "sensitive" | "public", "role"?: …,
    /// "range"?: [min, max], "style"?: …}`.
    static func read(from reader: inout JSONReader) throws(JSONReadError) -> Field {
        var value = JSONValue.null
        let layout = try walk(from: &reader) { (reader) throws(JSONReadError) in value = try JSONValue.read(from: &reader) }
        return Field(value: value, privacy: layout.privacy, role: layout.role, range: layout.range, style: layout.style)
    }

    /// Walks a field object with `read`'s checks (known keys, each once, `value`
    /// required), reading its other members and handing the value to `value` where it
    /// stands. `read` decodes the value, `CanonicalEntries` transcribes it.
    static func walk(
        from reader: inout JSONReader, value: (inout JSONReader) throws(JSONReadError) -> Void
    ) throws(JSONReadError) -> Layout {
        let start = try reader.objectStart()
        var layout = Layout()
        var seen = SeenKeys(object: start)
        try reader.readObjectMatching { (reader, key) throws(JSONReadError) in
            switch key {
            case "value":
                try seen.once(0, key)
                try value(&reader)
            case "privacy":
                try seen.once(1, key)
                guard try !reader.readNull() else { return }
                layout.privacy = try reader.readKnown(Privacy.self, #""sensitive" or "public""#)
            case "role":
                try seen.once(2, key)
                guard try !reader.readNull() else { return }
                layout.role = try reader.readKnown(FieldRole.self, FieldRole.known)
            case "range":
                try seen.once(3, key)
                guard try !reader.readNull() else { return }
                layout.range = try GaugeRange.read(from: &reader)
            case "style":
                try seen.once(4, key)
                guard try !reader.readNull() else { return }
                layout.style = try reader.readKnown(DateStyle.self, DateStyle.known)
            default:
                throw seen.unknown(key)
            }
        }
        guard seen.has(0) else { throw seen.missing("value") }
        return layout
    }
}

extension GaugeRange {
    /// Reads `[min, max]`: two numbers, nothing else.
    static func read(from reader: inout JSONReader) throws(JSONReadError) -> GaugeRange {
        let at = reader.offset
        let problem = JSONReadError.mismatch(at: at, "must be [min, max]: two numbers")
        guard try reader.peek() == .array else { throw problem }
        var bounds: [Double] = []
        try reader.readArray { (reader, index) throws(JSONReadError) in
            guard index < 2, try reader.peek() == .number else { throw problem }
            bounds.append(try reader.readNumber())
        }
        guard bounds.count == 2 else { throw problem }
        return GaugeRange(lowerBound: bounds[0], upperBound: bounds[1])
    }
}

extension WidgetAction {
    /// Reads an `actions` array.
    static func readArray(from reader: inout JSONReader) throws(JSONReadError) -> [WidgetAction] {
        var actions: [WidgetAction] = []
        try reader.readArray { (reader, _) throws(JSONReadError) in actions.append(try WidgetAction.read(from: &reader)) }
        return actions
    }

    /// Reads `{"id", "title", "icon"?, "kind", "isOn"?, "authentication"?, "privacy"?}`.
    static func read(from reader: inout JSONReader) throws(JSONReadError) -> WidgetAction {
        var id = ""
        var title = ""
        var icon: String?
        let words = try walk(from: &reader) { (member, reader) throws(JSONReadError) in
            switch member {
            case .id: id = try reader.readStringMember()
            case .title: title = try reader.readStringMember()
            case .icon: icon = try reader.readStringMember()
            }
        }
        return WidgetAction(
            id: id, title: title, icon: icon, kind: words.kind, isOn: words.isOn, authentication: words.authentication,
            privacy: words.privacy)
    }

    /// An action's members that are its provider's text.
    enum TextMember {
        case id, title, icon
    }

    /// An action's other members, as read.
    struct Words {
        var kind: ActionKind
        var isOn: Bool?
        var authentication: AuthenticationPolicy
        var privacy: Privacy?
    }

    /// Walks an action object with `read`'s checks (known keys, each once, `id`,
    /// `title` and `kind` required), reading its words and handing each text member
    /// (a null icon is absent) to `text` where it stands. `read` makes strings of
    /// them, `CanonicalEntries` copies them in place.
    static func walk(
        from reader: inout JSONReader, text: (TextMember, inout JSONReader) throws(JSONReadError) -> Void
    ) throws(JSONReadError) -> Words {
        let start = try reader.objectStart()
        var kind: ActionKind?
        var isOn: Bool?
        var authentication: AuthenticationPolicy?
        var privacy: Privacy?
        var seen = SeenKeys(object: start)
        try reader.readObjectMatching { (reader, key) throws(JSONReadError) in
            switch key {
            case "id":
                try seen.once(0, key)
                try text(.id, &reader)
            case "title":
                try seen.once(1, key)
                try text(.title, &reader)
            case "icon":
                try seen.once(2, key)
                guard try !reader.readNull() else { return }
                try text(.icon, &reader)
            case "kind":
                try seen.once(3, key)
                kind = try reader.readKnown(ActionKind.self, ActionKind.known)
            case "isOn":
                try seen.once(4, key)
                guard try !reader.readNull() else { return }
                let kind = try reader.peek()
                guard kind == .bool else { throw reader.mismatch(kind, "true or false") }
                isOn = try reader.readBool()
            case "authentication":
                try seen.once(5, key)
                guard try !reader.readNull() else { return }
                authentication = try reader.readKnown(AuthenticationPolicy.self, AuthenticationPolicy.known)
            case "privacy":
                try seen.once(6, key)
                guard try !reader.readNull() else { return }
                privacy = try reader.readKnown(Privacy.self, #""sensitive" or "public""#)
            default:
                throw seen.unknown(key)
            }
        }
        guard seen.has(0) else { throw seen.missing("id") }
        guard seen.has(1) else { throw seen.missing("title") }
        guard let kind else { throw seen.missing("kind") }
        return Words(kind: kind, isOn: isOn, authentication: authentication ?? .default, privacy: privacy)
    }
}

extension JSONValue {
    /// Reads any JSON value; an object with a repeated key is refused (its key is not
    /// quoted: inside a value, keys are data).
    public static func read(from reader: inout JSONReader) throws(JSONReadError) -> JSONValue {
        switch try reader.peek() {
        case .null:
            _ = try reader.readNull()
            return .null
        case .bool: return .bool(try reader.readBool())
        case .number: return .number(JSONNumber(checked: try reader.readNumberText()))
        case .string: return .string(try reader.readString())
        case .array:
            var items: [JSONValue] = []
            try reader.readArray { (reader, _) throws(JSONReadError) in items.append(try JSONValue.read(from: &reader)) }
            return .array(items)
        case .object:
            let start = reader.offset
            var members: [String: JSONValue] = [:]
            try reader.readObject { (reader, key) throws(JSONReadError) in
                guard members.updateValue(try JSONValue.read(from: &reader), forKey: key) == nil else {
                    throw JSONReadError.mismatch(at: start, "has a duplicate key")
                }
            }
            return .object(members)
        }
    }
}

extension JSONValue {
    /// Reads one whole JSON document (whitespace around it allowed) into a value,
    /// numbers as their literal text.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONReadError) -> JSONValue {
        try JSONReader.validate(bytes)
        var reader = JSONReader(bytes)
        return try read(from: &reader)
    }
}

extension ReloadPolicy {
    /// Reads `{"kind":"atEnd"}`, `{"kind":"after","date":…}` or `{"kind":"never"}`;
    /// `"date": null` counts as absent.
    public static func read(from reader: inout JSONReader) throws(JSONReadError) -> ReloadPolicy {
        let start = try reader.objectStart()
        var kind: (text: String, offset: Int)?
        var dateOffset: Int?
        var seen = SeenKeys(object: start)
        try reader.readObjectMatching { (reader, key) throws(JSONReadError) in
            switch key {
            case "kind":
                try seen.once(0, key)
                _ = try reader.peek()
                let at = reader.offset
                kind = (try reader.readString(), at)
            case "date":
                try seen.once(1, key)
                if try !reader.readNull() {
                    dateOffset = reader.offset
                    try reader.skipValue()
                }
            default:
                throw seen.unknown(key)
            }
        }
        guard let kind else { throw seen.missing("kind") }
        switch kind.text {
        case "atEnd", "never":
            if let dateOffset { throw JSONReadError.mismatch(at: dateOffset, "is only allowed with kind \"after\"") }
            return kind.text == "atEnd" ? .atEnd : .never
        case "after":
            guard let dateOffset else { throw JSONReadError.mismatch(at: start, "kind \"after\" needs a \"date\"") }
            var dateReader = reader.reader(at: dateOffset)
            return .after(try dateReader.readRFC3339())
        default:
            throw JSONReadError.mismatch(at: kind.offset, "must be \"atEnd\", \"after\" or \"never\"")
        }
    }
}

extension Placeholder {
    /// Reads `{"fields": {…}, "actions"?: […]}`.
    public static func read(from reader: inout JSONReader) throws(JSONReadError) -> Placeholder {
        let start = try reader.objectStart()
        var fields: FieldList<Field>?
        var actions: [WidgetAction] = []
        var seen = SeenKeys(object: start)
        try reader.readObjectMatching { (reader, key) throws(JSONReadError) in
            switch key {
            case "fields":
                try seen.once(0, key)
                fields = try Field.readFields(from: &reader)
            case "actions":
                try seen.once(1, key)
                actions = try reader.readNull() ? [] : try WidgetAction.readArray(from: &reader)
            default:
                throw seen.unknown(key)
            }
        }
        guard let fields else { throw seen.missing("fields") }
        return Placeholder(fields: fields, actions: actions)
    }
}

extension JSONReader {
    /// Checks that an object comes next and returns its offset, for errors about it.
    mutating func objectStart() throws(JSONReadError) -> Int {
        let kind = try peek()
        guard kind == .object else { throw mismatch(kind, "an object") }
        return offset
    }

    /// Reads a string naming one of `T`'s cases; anything else is `mismatch` with the
    /// words listing them (the value is not echoed).
    mutating func readKnown<T: RawRepresentable & CaseIterable>(_: T.Type, _ known: String) throws(JSONReadError) -> T
    where T.RawValue == String {
        _ = try peek()
        let at = offset
        // The usual word, matched where it stands; one with escapes is unescaped first.
        if bytes[at] == UInt8(ascii: "\""), let text = try? readUnescapedString() {
            for value in T.allCases where Self.equal(text, value.rawValue) { return value }
            throw JSONReadError.mismatch(at: at, "must be \(known)")
        }
        let text = try? readString()
        guard let text, let value = T(rawValue: text) else {
            throw JSONReadError.mismatch(at: at, "must be \(known)")
        }
        return value
    }

    /// Whether `bytes` are `word`'s UTF-8: the length first, then the bytes.
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ word: String) -> Bool {
        var word = word
        return word.withUTF8 { utf8 in
            utf8.count == bytes.count && (0..<utf8.count).allSatisfy { utf8[$0] == bytes[$0] }
        }
    }

    /// Reads a string, or throws the mismatch `Codable` decoding names.
    mutating func readStringMember() throws(JSONReadError) -> String {
        let kind = try peek()
        guard kind == .string else { throw mismatch(kind, "a string") }
        return try readString()
    }

    /// Reads an RFC 3339 date-time string.
    mutating func readRFC3339() throws(JSONReadError) -> Date {
        _ = try peek()
        let at = offset
        // The usual case: printable ASCII without escapes, parsed in place with no
        // `String`. Anything else (escapes, bad UTF-8, a bad date) takes the general
        // path below, so its errors are the ones it has always given.
        if bytes[at] == UInt8(ascii: "\"") {
            var end = at + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
                bytes[end] >= 0x20, bytes[end] < 0x7F
            {
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                let text = UnsafeRawBufferPointer(rebasing: bytes[(at + 1)..<end]).assumingMemoryBound(to: UInt8.self)
                if let date = try? RFC3339.parse(text) {
                    self = reader(at: end + 1)
                    return date
                }
            }
        }
        let text = try readString()
        do {
            return try RFC3339.parse(text)
        } catch {
            throw JSONReadError.mismatch(at: at, error.description)
        }
    }
}

/// The known keys an object has shown so far, to refuse one given twice.
struct SeenKeys {
    /// Where the object starts: its errors point there.
    private let object: Int
    private var mask: UInt32 = 0

    /// An empty set for the object starting at `object`.
    init(object: Int) {
        self.object = object
    }

    /// Records key number `bit`; throws if it was already there.
    mutating func once(_ bit: Int, _ key: JSONKey) throws(JSONReadError) {
        guard mask & (1 << bit) == 0 else {
            throw JSONReadError.mismatch(at: object, "duplicate key \(ModelPath.quote(key.text))")
        }
        mask |= 1 << bit
    }

    /// Whether key number `bit` was seen.
    func has(_ bit: Int) -> Bool {
        mask & (1 << bit) != 0
    }

    /// The error for a key the object does not have.
    func unknown(_ key: JSONKey) -> JSONReadError {
        JSONReadError.mismatch(at: object, "unknown key \(ModelPath.quote(key.text))")
    }

    /// The error for a required key that is absent.
    func missing(_ key: StaticString) -> JSONReadError {
        JSONReadError.mismatch(at: object, "missing \"\(key)\"")
    }
}

extension InvalidTimeline {
    /// Describes a `JSONReader` error in `document`, naming its path the way
    /// `InvalidTimeline(decoding:)` does (`entries[3].fields["temp"].privacy: …`).
    /// A syntax error names no path: the document as a whole is not JSON.
    public init(reading error: JSONReadError, in document: UnsafeRawBufferPointer) {
        guard error.kind == .mismatch else {
            self.init(reason: "is not valid JSON")
            return
        }
        let path = ModelPath.describe(JSONReader.path(to: error.offset, in: document).map(PathKey.init))
        self.init(reason: path.isEmpty ? error.message : "\(path): \(error.message)")
    }

    /// Reads a whole document as `T` with `read`: checked as JSON first (so that a
    /// syntax error anywhere wins, as with `JSONDecoder`), then decoded.
    static func reading<T>(
        _ bytes: UnsafeRawBufferPointer, _ read: (inout JSONReader) throws(JSONReadError) -> T
    ) throws(InvalidTimeline) -> T {
        guard bytes.count > 0 else { throw InvalidTimeline(reason: "is empty; expected a JSON object") }
        do {
            try JSONReader.validate(bytes)
            var reader = JSONReader(bytes)
            return try read(&reader)
        } catch {
            throw InvalidTimeline(reading: error, in: bytes)
        }
    }
}

/// A path component as a `CodingKey`, for `ModelPath.describe`.
private struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ component: JSONPathComponent) {
        switch component {
        case .key(let key): stringValue = key; intValue = nil
        case .index(let index): stringValue = "Index \(index)"; intValue = index
        }
    }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.stringValue = "Index \(intValue)"; self.intValue = intValue }
}
