import FoundationEssentials
import StrictJSON

/// Writes a request's `entries` array straight into a timeline's canonical JSON
/// (`Timeline.write`), reading it in place: no `Entry`, `Field` or `String` is made
/// for the content, which goes only from the request's buffer to the writer's.
///
/// It reads with the model's own walks (`Entry.walk`, `Field.walk`: the keys, their
/// checks, the date, relevance, privacy, role, range and style), and writes the rest
/// itself: field names, values and actions, in place. It takes the usual request:
/// entries in date order, field names, values and action strings without escapes,
/// values without objects, everything within the limits. Layout roles, gauge ranges,
/// date styles and actions (DESIGN §12, §13) are the usual kind too: checked here as
/// `TimelineValidator` checks them and written in their canonical place. For anything
/// else it throws and writes garbage: the caller then reads the same bytes again with
/// `Entry.readArray` and `TimelineValidator`, which name the problem or build the
/// timeline the general way. So what it accepts is exactly what those accept, written
/// as `Timeline.write` would write it; the model tests and the timeline fuzzer compare both.
public enum CanonicalEntries {
    /// Reads the `entries` array the reader stands on and writes `{"entries":[…` for
    /// it; returns the last entry's date (nil: no entries). The caller ends the body
    /// with `finish(policy:to:)`.
    public static func transcribe(
        from reader: inout JSONReader, limits: TimelineLimits, to writer: inout JSONWriter
    ) throws(JSONReadError) -> Date? {
        writer.raw(#"{"entries":["#)
        var last: Date?
        // Reused by every entry: the names of its fields, the ids of its actions.
        var names: [UnsafeRawBufferPointer] = []
        var ids: [UnsafeRawBufferPointer] = []
        try reader.readArray { (reader, index) throws(JSONReadError) in
            guard index < limits.maxEntries else { throw refused(reader) }
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            let date = try entry(from: &reader, limits: limits, names: &names, ids: &ids, to: &writer)
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

    /// `{"actions"?:[…],"date":…,"fields":{…},"relevance"?:{…}}`, walked as
    /// `Entry.read` walks it (`Entry.walk`); returns the date.
    private static func entry(
        from reader: inout JSONReader, limits: TimelineLimits, names: inout [UnsafeRawBufferPointer],
        ids: inout [UnsafeRawBufferPointer], to writer: inout JSONWriter
    ) throws(JSONReadError) -> Date {
        writer.byte(UInt8(ascii: "{"))
        // The actions, then the date, go here: the fields are written as they come, and
        // those two are inserted before them.
        let open = writer.count
        var actionsLength = 0
        var relevance: Relevance?
        var hasFields = false
        let date = try Entry.walk(from: &reader) { (member, reader) throws(JSONReadError) in
            switch member {
            case .fields:
                writer.raw(#""fields":"#)
                try fields(from: &reader, limits: limits, names: &names, to: &writer)
                hasFields = true
            case .relevance:
                guard try !reader.readNull() else { return }
                let read = try Relevance.read(from: &reader)
                guard TimelineValidator.relevanceProblem(read) == nil else { throw refused(reader) }
                relevance = read
            case .actions:
                guard try !reader.readNull() else { return }
                let before = writer.count
                try actions(from: &reader, ids: &ids, to: &writer, at: open)
                actionsLength = writer.count - before
            }
        }
        guard RFC3339.isRepresentable(date), hasFields else { throw refused(reader) }
        var at = open + actionsLength
        insert(#""date":""#, into: &writer, at: &at)
        RFC3339.withFormatted(date) { insert(UnsafeRawBufferPointer($0), into: &writer, at: &at) }
        insert(#"","#, into: &writer, at: &at)
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
            guard let name, names.count < limits.maxFieldsPerEntry, TimelineValidator.nameProblem(name, limits: limits) == nil,
                !names.contains(where: { $0.elementsEqual(name) })
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

    /// `{"privacy"?:…,"range"?:[…],"role"?:…,"style"?:…,"value":…}`, walked as
    /// `Field.read` walks it (`Field.walk`): the value written as it comes, the members
    /// before it inserted once the field is read.
    private static func field(from reader: inout JSONReader, limits: TimelineLimits, to writer: inout JSONWriter) throws(JSONReadError) {
        writer.byte(UInt8(ascii: "{"))
        let open = writer.count
        // Where the value stands, for the check its role asks of it.
        var valueReader = reader
        let layout = try Field.walk(from: &reader) { (reader) throws(JSONReadError) in
            writer.raw(#""value":"#)
            valueReader = reader
            var budget = limits.maxValueBytes
            try value(from: &reader, depth: 0, maxDepth: limits.maxNestingDepth, budget: &budget, to: &writer)
            guard budget >= 0 else { throw refused(reader) }
        }
        guard layout.problem == nil, try fitsItsRole(valueReader, layout) else { throw refused(reader) }
        if layout.privacy != nil || layout.role != nil || layout.range != nil || layout.style != nil {
            // At most `"privacy":"sensitive","range":[n,n],"role":"detail","style":"relative",`,
            // each number at most 24 bytes as `JSONWriter.number` spells it.
            withUnsafeTemporaryAllocation(byteCount: 160, alignment: 1) { (buffer) in
                var members = JSONWriter(into: buffer)
                if let privacy = layout.privacy {
                    members.raw(#""privacy":"#)
                    members.string(privacy.rawValue)
                    members.byte(UInt8(ascii: ","))
                }
                Field.writeLayout(role: layout.role, range: layout.range, style: layout.style, to: &members)
                precondition(members.fits, "a field's members before its value fit in 160 bytes")
                writer.insert(UnsafeRawBufferPointer(rebasing: buffer[0..<members.count]), at: open)
            }
        }
        writer.byte(UInt8(ascii: "}"))
    }

    /// Whether the value `reader` stands on is what `TimelineValidator` asks of a field
    /// with `layout`'s role (DESIGN §12), its members already found to fit together.
    private static func fitsItsRole(_ reader: JSONReader, _ layout: Field.Layout) throws(JSONReadError) -> Bool {
        var value = reader
        switch layout.role {
        case nil, .title?, .value?, .detail?:
            return true
        case .gauge?:
            guard try value.peek() == .number else { return false }
            return (layout.range ?? .unit).contains(try value.readNumber())
        case .icon?:
            guard try value.peek() == .string, let name = try value.readUnescapedString() else { return false }
            return TimelineValidator.isIconName(utf8: name)
        case .date?:
            guard try value.peek() == .string, let text = try value.readUnescapedString(),
                let date = try? RFC3339.parse(text.assumingMemoryBound(to: UInt8.self))
            else { return false }
            return RFC3339.isRepresentable(date)
        }
    }

    /// An `actions` array, written as `"actions":[…],` at `position` (nothing when it is
    /// empty), each action's members in their canonical order and checked as
    /// `TimelineValidator` checks them (DESIGN §13).
    ///
    /// Written first into a buffer of its own, then inserted once: an insertion per
    /// member moved the entry's fields along a dozen times an action. The buffer holds
    /// the actions' titles, content like any other, so it is zeroed before it is left.
    private static func actions(
        from reader: inout JSONReader, ids: inout [UnsafeRawBufferPointer], to writer: inout JSONWriter, at position: Int
    ) throws(JSONReadError) {
        guard try reader.peek() == .array else { throw refused(reader) }
        ids.removeAll(keepingCapacity: true)
        try withUnsafeTemporaryAllocation(byteCount: actionsBytes, alignment: 1) { (buffer) throws(JSONReadError) in
            var out = JSONWriter(into: buffer)
            defer { SecretWipe.zero(buffer.baseAddress, count: min(out.count, buffer.count)) }
            try reader.readArray { (reader, index) throws(JSONReadError) in
                guard index < TimelineValidator.maxActions else { throw refused(reader) }
                out.raw(index == 0 ? #""actions":["# : ",")
                try action(from: &reader, ids: &ids, to: &out)
            }
            guard !ids.isEmpty else { return }
            out.raw("],")
            precondition(out.fits, "the most actions an entry may have fit in their buffer")
            writer.insert(UnsafeRawBufferPointer(rebasing: buffer[0..<out.count]), at: position)
        }
    }

    /// The most an entry's `"actions":[…],` may take: `maxActions` of the longest action
    /// (its id, title and icon at their limits, every other key and word at its longest:
    /// 136 bytes with the comma), with the brackets.
    private static let actionsBytes =
        TimelineValidator.maxActions
        * (TimelineValidator.maxActionIDBytes + TimelineValidator.maxActionTitleBytes + TimelineValidator.maxIconNameBytes + 160)
        + 16

    /// `{"authentication":…,"icon"?:…,"id":…,"isOn"?:…,"kind":…,"privacy"?:…,"title":…}`,
    /// walked as `WidgetAction.read` walks it (`WidgetAction.walk`) and written once it
    /// is read and found valid (`TimelineValidator.actionProblem`).
    private static func action(
        from reader: inout JSONReader, ids: inout [UnsafeRawBufferPointer], to writer: inout JSONWriter
    ) throws(JSONReadError) {
        var id = UnsafeRawBufferPointer(start: nil, count: 0)
        var title = UnsafeRawBufferPointer(start: nil, count: 0)
        var icon: UnsafeRawBufferPointer?
        let words = try WidgetAction.walk(from: &reader) { (member, reader) throws(JSONReadError) in
            guard try reader.peek() == .string, let text = try reader.readUnescapedString() else { throw refused(reader) }
            switch member {
            case .id: id = text
            case .title: title = text
            case .icon: icon = text
            }
        }
        let problem = TimelineValidator.actionProblem(
            id: id, title: title, icon: icon, kind: words.kind, isOn: words.isOn,
            idGivenBefore: ids.contains(where: { $0.elementsEqual(id) }))
        guard problem == nil else { throw refused(reader) }
        ids.append(id)
        // Unescaped JSON string bytes: written as `JSONWriter.string` writes them.
        writer.raw(#"{"authentication":""#)
        writer.raw(words.authentication.rawValue)
        if let icon {
            writer.raw(#"","icon":""#)
            writer.raw(icon)
        }
        writer.raw(#"","id":""#)
        writer.raw(id)
        switch words.isOn {
        case nil: writer.byte(UInt8(ascii: "\""))
        case true?: writer.raw(#"","isOn":true"#)
        case false?: writer.raw(#"","isOn":false"#)
        }
        writer.raw(#","kind":""#)
        writer.raw(words.kind.rawValue)
        if let privacy = words.privacy {
            writer.raw(#"","privacy":""#)
            writer.raw(privacy.rawValue)
        }
        writer.raw(#"","title":""#)
        writer.raw(title)
        writer.raw(#""}"#)
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

    private static func insert(_ text: StaticString, into writer: inout JSONWriter, at position: inout Int) {
        insert(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), into: &writer, at: &position)
    }

    private static func insert(_ bytes: UnsafeRawBufferPointer, into writer: inout JSONWriter, at position: inout Int) {
        writer.insert(bytes, at: position)
        position += bytes.count
    }
}
