import FoundationEssentials
import StrictJSON

/// Writes a request's `entries` array straight into a timeline's canonical JSON
/// (`Timeline.write`), reading it in place: no `Entry`, `Field` or `String` is made
/// for the content, which goes only from the request's buffer to the writer's.
///
/// It takes the usual request: entries in date order, strings without escapes, field
/// values without objects, everything within the limits. For anything else it throws
/// (a mismatch with no message) and writes garbage: the caller then reads the same
/// bytes again with `Entry.readArray` and `TimelineValidator`, which name the problem
/// or build the timeline the general way. So what it accepts is exactly what those
/// accept, written as `Timeline.write` would write it; the model tests compare both.
public enum CanonicalEntries {
    /// Reads the `entries` array the reader stands on and writes `{"entries":[…` for
    /// it; returns the last entry's date (nil: no entries). The caller ends the body
    /// with `finish(policy:to:)`.
    public static func transcribe(
        from reader: inout JSONReader, limits: TimelineLimits, to writer: inout JSONWriter
    ) throws(JSONReadError) -> Date? {
        writer.raw(#"{"entries":["#)
        var last: Date?
        var names: [UnsafeRawBufferPointer] = []
        try reader.readArray { (reader, index) throws(JSONReadError) in
            guard index < limits.maxEntries else { throw refused(reader) }
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            let date = try entry(from: &reader, limits: limits, names: &names, to: &writer)
            // Out of order: `Timeline` sorts them, the general way.
            if let last, date < last { throw refused(reader) }
            last = date
        }
        return last
    }

    /// Ends a body `transcribe` began: `],"policy":{…}}`.
    public static func finish(policy: ReloadPolicy, to writer: inout JSONWriter) {
        writer.raw(#"],"policy":"#)
        policy.write(to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }

    /// When the provider should be asked again (`Timeline.reloadDue`) for a body of
    /// `policy` whose last entry is dated `lastDate`.
    public static func reloadDue(_ policy: ReloadPolicy, lastDate: Date?) -> Date? {
        Timeline.reloadDue(policy, lastDate: lastDate)
    }

    /// `{"date":…,"fields":{…},"relevance"?:{…}}`; returns the date.
    private static func entry(
        from reader: inout JSONReader, limits: TimelineLimits, names: inout [UnsafeRawBufferPointer], to writer: inout JSONWriter
    ) throws(JSONReadError) -> Date {
        guard try reader.peek() == .object else { throw refused(reader) }
        writer.byte(UInt8(ascii: "{"))
        // The date goes here, whenever it comes: members are written as they come
        // and the date is inserted before the fields.
        let open = writer.count
        var date: Date?
        var relevance: Relevance?
        var hasFields = false
        var seen: UInt8 = 0
        try reader.readObjectInPlace { (reader, key) throws(JSONReadError) in
            guard let key else { throw refused(reader) }
            if matches(key, "date") {
                try once(&seen, 1, reader)
                let read = try reader.readRFC3339()
                guard RFC3339.isRepresentable(read) else { throw refused(reader) }
                date = read
                var at = open
                insert(#""date":""#, into: &writer, at: &at)
                RFC3339.withFormatted(read) { insert(UnsafeRawBufferPointer($0), into: &writer, at: &at) }
                insert(#"","#, into: &writer, at: &at)
            } else if matches(key, "fields") {
                try once(&seen, 2, reader)
                writer.raw(#""fields":"#)
                try fields(from: &reader, limits: limits, names: &names, to: &writer)
                hasFields = true
            } else if matches(key, "relevance") {
                try once(&seen, 4, reader)
                guard try !reader.readNull() else { return }
                let read = try Relevance.read(from: &reader)
                guard read.score.isFinite, read.duration.isFinite, read.duration >= 0 else { throw refused(reader) }
                relevance = read
            } else {
                throw refused(reader)
            }
        }
        guard let date, hasFields else { throw refused(reader) }
        relevance?.write(to: &writer)
        writer.byte(UInt8(ascii: "}"))
        return date
    }

    /// A `fields` object: names in their order, each `{"privacy"?:…,"value":…}`.
    private static func fields(
        from reader: inout JSONReader, limits: TimelineLimits, names: inout [UnsafeRawBufferPointer], to writer: inout JSONWriter
    ) throws(JSONReadError) {
        names.removeAll(keepingCapacity: true)
        writer.byte(UInt8(ascii: "{"))
        try reader.readObjectInPlace { (reader, name) throws(JSONReadError) in
            guard let name, !name.isEmpty, name.count <= limits.maxFieldNameBytes, names.count < limits.maxFieldsPerEntry,
                !name.contains(0x7F), !names.contains(where: { $0.elementsEqual(name) })
            else { throw refused(reader) }
            if !names.isEmpty { writer.byte(UInt8(ascii: ",")) }
            names.append(name)
            // Unescaped JSON string bytes: written as `JSONWriter.string` writes them.
            writer.byte(UInt8(ascii: "\""))
            writer.raw(name)
            writer.raw(#"":"#)
            try field(from: &reader, limits: limits, to: &writer)
        }
        writer.byte(UInt8(ascii: "}"))
    }

    /// `{"privacy"?:…,"value":…}`, the privacy inserted before the value it may follow.
    private static func field(from reader: inout JSONReader, limits: TimelineLimits, to writer: inout JSONWriter) throws(JSONReadError) {
        guard try reader.peek() == .object else { throw refused(reader) }
        writer.byte(UInt8(ascii: "{"))
        let open = writer.count
        var privacy: Privacy?
        var seen: UInt8 = 0
        try reader.readObjectInPlace { (reader, key) throws(JSONReadError) in
            guard let key else { throw refused(reader) }
            if matches(key, "value") {
                try once(&seen, 1, reader)
                writer.raw(#""value":"#)
                var budget = limits.maxValueBytes
                try value(from: &reader, depth: 0, maxDepth: limits.maxNestingDepth, budget: &budget, to: &writer)
                guard budget >= 0 else { throw refused(reader) }
            } else if matches(key, "privacy") {
                try once(&seen, 2, reader)
                guard try !reader.readNull() else { return }
                guard let text = try reader.readUnescapedString() else { throw refused(reader) }
                if matches(text, "sensitive") {
                    privacy = .sensitive
                } else if matches(text, "public") {
                    privacy = .public
                } else {
                    throw refused(reader)
                }
            } else {
                throw refused(reader)
            }
        }
        guard seen & 1 != 0 else { throw refused(reader) }
        var at = open
        switch privacy {
        case nil: break
        case .sensitive: insert(#""privacy":"sensitive","#, into: &writer, at: &at)
        case .public: insert(#""privacy":"public","#, into: &writer, at: &at)
        }
        writer.byte(UInt8(ascii: "}"))
    }

    /// A field's value, spending `budget` as `ValueBudget` counts it.
    private static func value(
        from reader: inout JSONReader, depth: Int, maxDepth: Int, budget: inout Int, to writer: inout JSONWriter
    ) throws(JSONReadError) {
        switch try reader.peek() {
        case .null:
            _ = try reader.readNull()
            budget -= 4
            writer.null()
        case .bool:
            let flag = try reader.readBool()
            budget -= flag ? 4 : 5
            writer.bool(flag)
        case .number:
            let literal = try reader.readNumberBytes()
            budget -= literal.count
            writer.raw(literal)
        case .string:
            guard let text = try reader.readUnescapedString() else { throw refused(reader) }
            budget -= 2 + text.count
            writer.byte(UInt8(ascii: "\""))
            writer.raw(text)
            writer.byte(UInt8(ascii: "\""))
        case .array:
            guard depth < maxDepth else { throw refused(reader) }
            budget -= 2
            writer.byte(UInt8(ascii: "["))
            try reader.readArray { (reader, index) throws(JSONReadError) in
                if index > 0 {
                    budget -= 1
                    writer.byte(UInt8(ascii: ","))
                }
                try value(from: &reader, depth: depth + 1, maxDepth: maxDepth, budget: &budget, to: &writer)
            }
            writer.byte(UInt8(ascii: "]"))
        case .object:
            // Its keys are sorted in the canonical form: the general way.
            throw refused(reader)
        }
    }

    /// Not transcribed here: the caller reads the entries the general way.
    private static func refused(_ reader: JSONReader) -> JSONReadError {
        JSONReadError.mismatch(at: reader.offset, "")
    }

    /// Records key `bit` of an object; a repeated key is refused.
    private static func once(_ seen: inout UInt8, _ bit: UInt8, _ reader: JSONReader) throws(JSONReadError) {
        guard seen & bit == 0 else { throw refused(reader) }
        seen |= bit
    }

    private static func matches(_ bytes: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        bytes.elementsEqual(UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
    }

    private static func insert(_ text: StaticString, into writer: inout JSONWriter, at position: inout Int) {
        insert(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), into: &writer, at: &position)
    }

    private static func insert(_ bytes: UnsafeRawBufferPointer, into writer: inout JSONWriter, at position: inout Int) {
        writer.insert(bytes, at: position)
        position += bytes.count
    }
}
