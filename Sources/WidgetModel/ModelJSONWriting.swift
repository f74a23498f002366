import FoundationEssentials
import StrictJSON

// The canonical JSON of the timeline model, written with `JSONWriter`: compact, keys
// sorted except field names, which keep the provider's order (hosts draw fields in it), dates in RFC 3339 as `RFC3339.format` writes them. `Timeline.read` (and
// `Timeline.decode`) reads these bytes back to an equal value; the model tests check
// that, and that they decode to the same value through the `Codable` path.

extension Timeline {
    /// Writes `{"entries":[…],"policy":{…}}`.
    public func write(to writer: inout JSONWriter) {
        writer.raw(#"{"entries":["#)
        for (index, entry) in entries.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            entry.write(to: &writer)
        }
        writer.raw(#"],"policy":"#)
        policy.write(to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }

    /// The canonical bytes' length, for sizing a buffer before `write(to:)`.
    public var canonicalJSONCount: Int {
        var counter = JSONWriter()
        write(to: &counter)
        return counter.count
    }
}

extension Entry {
    /// Writes `{"actions"?:[…],"date":…,"fields":{…},"relevance"?:{…}}`.
    func write(to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        if !actions.isEmpty {
            writer.raw(#""actions":"#)
            WidgetAction.write(actions, to: &writer)
            writer.byte(UInt8(ascii: ","))
        }
        writer.raw(#""date":"#)
        RFC3339.write(date, to: &writer)
        writer.raw(#","fields":"#)
        Field.write(fields, to: &writer)
        relevance?.write(to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }
}

extension Relevance {
    /// Writes `,"relevance":{"duration":…,"score":…}`, the member an entry ends with:
    /// the one spelling of it for `Entry.write` and `CanonicalEntries`.
    func write(to writer: inout JSONWriter) {
        writer.raw(#","relevance":{"duration":"#)
        writer.number(duration)
        writer.raw(#","score":"#)
        writer.number(score)
        writer.byte(UInt8(ascii: "}"))
    }
}

extension Field {
    /// Writes a `fields` object, fields in their order.
    static func write(_ fields: FieldList<Field>, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        for (index, (name, field)) in fields.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.string(name)
            writer.byte(UInt8(ascii: ":"))
            field.write(to: &writer)
        }
        writer.byte(UInt8(ascii: "}"))
    }

    /// Writes `{"privacy"?:…,"range"?:[…],"role"?:…,"style"?:…,"value":…}`.
    func write(to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        if let privacy {
            writer.raw(#""privacy":"#)
            writer.string(privacy.rawValue)
            writer.byte(UInt8(ascii: ","))
        }
        Self.writeLayout(role: role, range: range, style: style, to: &writer)
        writer.raw(#""value":"#)
        value.write(to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }

    /// Writes `"range"?:[…],"role"?:…,"style"?:…,` — the layout members between
    /// `privacy` and the value of a stored field.
    static func writeLayout(role: FieldRole?, range: GaugeRange?, style: DateStyle?, to writer: inout JSONWriter) {
        if let range {
            writer.raw(#""range":"#)
            range.write(to: &writer)
            writer.byte(UInt8(ascii: ","))
        }
        if let role {
            writer.raw(#""role":"#)
            writer.string(role.rawValue)
            writer.byte(UInt8(ascii: ","))
        }
        if let style {
            writer.raw(#""style":"#)
            writer.string(style.rawValue)
            writer.byte(UInt8(ascii: ","))
        }
    }
}

extension GaugeRange {
    /// Writes `[min,max]` as `JSONWriter.number` spells numbers: the one spelling for
    /// stored and presented fields (validation refuses bounds that are not finite).
    func write(to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        writer.number(lowerBound)
        writer.byte(UInt8(ascii: ","))
        writer.number(upperBound)
        writer.byte(UInt8(ascii: "]"))
    }
}

extension WidgetAction {
    /// Writes an `actions` array, actions in their order.
    static func write(_ actions: [WidgetAction], to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        for (index, action) in actions.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            action.write(to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
    }

    /// Writes `{"authentication":…,"icon"?:…,"id":…,"isOn"?:…,"kind":…,"privacy"?:…,"title":…}`.
    func write(to writer: inout JSONWriter) {
        writer.raw(#"{"authentication":"#)
        writer.string(authentication.rawValue)
        if let icon {
            writer.raw(#","icon":"#)
            writer.string(icon)
        }
        writer.raw(#","id":"#)
        writer.string(id)
        if let isOn { writer.raw(isOn ? #","isOn":true"# : #","isOn":false"#) }
        writer.raw(#","kind":"#)
        writer.string(kind.rawValue)
        if let privacy {
            writer.raw(#","privacy":"#)
            writer.string(privacy.rawValue)
        }
        writer.raw(#","title":"#)
        writer.string(title)
        writer.byte(UInt8(ascii: "}"))
    }
}

extension JSONValue {
    /// Writes the value; object keys sorted.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(let value): writer.raw(value.text)
        case .string(let value): writer.string(value)
        case .array(let items):
            writer.byte(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                item.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "]"))
        case .object(let members):
            writer.byte(UInt8(ascii: "{"))
            if writer.isCounting {
                // The measuring pass: the same bytes in another order, with no sort.
                for (index, (key, member)) in members.enumerated() {
                    if index > 0 { writer.byte(UInt8(ascii: ",")) }
                    writer.string(key)
                    writer.byte(UInt8(ascii: ":"))
                    member.write(to: &writer)
                }
            } else {
                for (index, key) in members.keys.sorted().enumerated() {
                    if index > 0 { writer.byte(UInt8(ascii: ",")) }
                    writer.string(key)
                    writer.byte(UInt8(ascii: ":"))
                    members[key]!.write(to: &writer)
                }
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }
}

extension ReloadPolicy {
    /// Writes `{"kind":…}` with a `date` for `after`.
    func write(to writer: inout JSONWriter) {
        switch self {
        case .atEnd: writer.raw(#"{"kind":"atEnd"}"#)
        case .never: writer.raw(#"{"kind":"never"}"#)
        case .after(let date):
            writer.raw(#"{"date":"#)
            RFC3339.write(date, to: &writer)
            writer.raw(#","kind":"after"}"#)
        }
    }
}

extension Placeholder {
    /// Writes `{"actions"?:[…],"fields":{…}}`.
    public func write(to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        if !actions.isEmpty {
            writer.raw(#""actions":"#)
            WidgetAction.write(actions, to: &writer)
            writer.byte(UInt8(ascii: ","))
        }
        writer.raw(#""fields":"#)
        Field.write(fields, to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }

    /// The canonical bytes (a placeholder holds no private data, so an array is fine).
    public var canonicalJSON: [UInt8] { JSONWriter.bytes { write(to: &$0) } }
}

extension JSONWriter {
    /// What `write` writes, in an array of exactly its size: measured by a counting
    /// pass first, then written once, so the array is never grown or copied.
    static func bytes(_ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var counter = JSONWriter()
        write(&counter)
        return [UInt8](unsafeUninitializedCapacity: counter.count) { buffer, initialized in
            var writer = JSONWriter(into: UnsafeMutableRawBufferPointer(buffer))
            write(&writer)
            initialized = writer.count
        }
    }
}

extension RFC3339 {
    /// Writes `date` as a JSON string, the same bytes as `writer.string(format(date))`
    /// (the text needs no escape) without making the `String`.
    static func write(_ date: Date, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "\""))
        withFormatted(date) { writer.raw(UnsafeRawBufferPointer($0)) }
        writer.byte(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// The value as compact JSON, keys sorted, numbers as their text: measured first,
    /// then written into an array of exactly that size. The caller zeroes it if it
    /// holds content.
    public var jsonBytes: [UInt8] { JSONWriter.bytes { write(to: &$0) } }
}
