import FoundationEssentials
import StrictJSON

/// Checks decoded timelines, entries, policies and placeholders against `TimelineLimits`
/// and the rules that decoding alone cannot enforce.
///
/// Decoding already rejects bad dates, unknown privacy values, unknown keys and wrong
/// types; this adds counts, sizes, nesting, finite relevance numbers and dates in range. Each
/// failure names the entry and field: `entries[3].fields["temp"]: value is larger than 16384 bytes as JSON`.
public enum TimelineValidator {
    /// Validates a whole timeline.
    public static func validate(_ timeline: Timeline, limits: TimelineLimits = .default) throws(InvalidTimeline) {
        try validate(entries: timeline.entries, limits: limits)
        try validate(policy: timeline.policy)
    }

    /// Validates entries; `path` prefixes the messages (`entries[3]…`).
    public static func validate(entries: [Entry], limits: TimelineLimits = .default, path: String = "entries") throws(InvalidTimeline) {
        guard entries.count <= limits.maxEntries else {
            throw InvalidTimeline(reason: "\(path): \(entries.count) entries; at most \(limits.maxEntries) are allowed")
        }
        for (index, entry) in entries.enumerated() {
            // Built only for a message: a valid entry costs no String.
            func here() -> String { "\(path)[\(index)]" }
            guard RFC3339.isRepresentable(entry.date) else {
                throw InvalidTimeline(reason: "\(here()).date: is outside the years 0000–9999")
            }
            if let relevance = entry.relevance, let problem = relevanceProblem(relevance) {
                throw InvalidTimeline(reason: "\(here()).relevance.\(problem)")
            }
            try validate(fields: entry.fields, limits: limits, path: "\(here()).fields")
            try validate(actions: entry.actions, path: "\(here()).actions")
        }
    }

    /// What is wrong with an entry's relevance, in the words after `relevance.`; nil
    /// when it is valid. The one rule for the validator and `CanonicalEntries`.
    static func relevanceProblem(_ relevance: Relevance) -> String? {
        if !relevance.score.isFinite { return "score: is not a finite number" }
        if !relevance.duration.isFinite || relevance.duration < 0 {
            return "duration: must be a finite number of seconds, 0 or more"
        }
        return nil
    }

    /// Validates a reload policy: an `after` date must be representable.
    public static func validate(policy: ReloadPolicy) throws(InvalidTimeline) {
        if case .after(let date) = policy, !RFC3339.isRepresentable(date) {
            throw InvalidTimeline(reason: "policy.date: is outside the years 0000–9999")
        }
    }

    /// Validates a placeholder's fields with the same limits as an entry's.
    public static func validate(placeholder: Placeholder, limits: TimelineLimits = .default) throws(InvalidTimeline) {
        try validate(fields: placeholder.fields, limits: limits, path: "placeholder.fields")
        try validate(actions: placeholder.actions, path: "placeholder.actions")
    }

    /// Most actions on one entry or placeholder: a widget shows a few buttons at most.
    public static let maxActions = 8
    /// Longest action id, in bytes.
    public static let maxActionIDBytes = 64
    /// Longest action title, in UTF-8 bytes.
    public static let maxActionTitleBytes = 256
    /// Longest icon name, in bytes (DESIGN §12).
    public static let maxIconNameBytes = 64

    /// Validates an entry's or placeholder's actions (DESIGN §13): bounded count and
    /// sizes, unique ids, a toggle with `isOn` and a button without.
    static func validate(actions: [WidgetAction], path: @autoclosure () -> String) throws(InvalidTimeline) {
        guard actions.count <= maxActions else {
            throw InvalidTimeline(reason: "\(path()): \(actions.count) actions; at most \(maxActions) are allowed")
        }
        for (index, action) in actions.enumerated() {
            let problem = actionProblem(
                id: action.id.utf8, title: action.title.utf8, icon: action.icon?.utf8, kind: action.kind, isOn: action.isOn,
                idGivenBefore: actions[..<index].contains(where: { $0.id == action.id }))
            if let problem { throw InvalidTimeline(reason: "\(path())[\(index)]: \(problem)") }
        }
    }

    /// What is wrong with one action (DESIGN §13), in the words after its path; nil when
    /// it is valid. Over UTF-8 wherever it stands: a model's strings, or a request's
    /// bytes read in place (`CanonicalEntries`).
    static func actionProblem<Text: Collection<UInt8>>(
        id: Text, title: Text, icon: Text?, kind: ActionKind, isOn: Bool?, idGivenBefore: Bool
    ) -> String? {
        if !isActionID(utf8: id) {
            "id must be 1 to \(maxActionIDBytes) bytes of letters, digits, \".\", \"_\" or \"-\""
        } else if idGivenBefore {
            "id \(ModelPath.quote(String(decoding: id, as: UTF8.self))) is given twice"
        } else if title.isEmpty || title.count > maxActionTitleBytes {
            "title must be 1 to \(maxActionTitleBytes) bytes"
        } else if title.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            "title contains a control character"
        } else if let icon, !isIconName(utf8: icon) {
            "icon \(iconRule)"
        } else if kind == .toggle, isOn == nil {
            "a toggle needs \"isOn\""
        } else if kind == .button, isOn != nil {
            "\"isOn\" is only allowed on a toggle"
        } else {
            nil
        }
    }

    /// What an icon name may be, in the words of an error.
    static let iconRule = "must be an icon name: 1 to 64 bytes of a-z, 0-9 and \"-\" (never a path or URL)"

    /// Whether `name` is a plain freedesktop icon name as DESIGN §12 allows: `[a-z0-9-]`,
    /// at most 64 bytes. Never a path or a URL: a host looks it up in its theme only.
    public static func isIconName(_ name: String) -> Bool {
        isIconName(utf8: name.utf8)
    }

    /// `isIconName(_:)` of a name's UTF-8, wherever it stands.
    static func isIconName<Bytes: Collection<UInt8>>(utf8 name: Bytes) -> Bool {
        !name.isEmpty && name.count <= maxIconNameBytes
            && name.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// Whether `id` may name an action: letters, digits, `.`, `_`, `-`, at most 64 bytes.
    public static func isActionID(_ id: String) -> Bool {
        isActionID(utf8: id.utf8)
    }

    /// `isActionID(_:)` of an id's UTF-8, wherever it stands.
    static func isActionID<Bytes: Collection<UInt8>>(utf8 id: Bytes) -> Bool {
        !id.isEmpty && id.count <= maxActionIDBytes
            && id.allSatisfy {
                (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0)
                    || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
            }
    }

    static func validate(
        fields: FieldList<Field>, limits: TimelineLimits, path: @autoclosure () -> String
    ) throws(InvalidTimeline) {
        guard fields.count <= limits.maxFieldsPerEntry else {
            throw InvalidTimeline(reason: "\(path()): \(fields.count) fields; at most \(limits.maxFieldsPerEntry) are allowed")
        }
        // Fields are checked in their order, so the first problem in the text is named.
        for (name, field) in fields {
            guard let problem = problem(name: name, field: field, limits: limits) else { continue }
            throw InvalidTimeline(reason: "\(path())[\(ModelPath.quote(name))]: \(problem)")
        }
    }

    /// What is wrong with one field, in the words after its path; nil when it is valid.
    private static func problem(name: String, field: Field, limits: TimelineLimits) -> String? {
        if let problem = nameProblem(name.utf8, limits: limits) { return problem }
        var budget = ValueBudget(remaining: limits.maxValueBytes, maxDepth: limits.maxNestingDepth)
        if let problem = budget.check(field.value, depth: 0) { return "value \(problem.description(limits))" }
        return layoutProblem(field)
    }

    /// What is wrong with a field's name, in the words after its path; nil when it is
    /// valid. Over UTF-8 wherever it stands, as `actionProblem`.
    static func nameProblem<Text: Collection<UInt8>>(_ name: Text, limits: TimelineLimits) -> String? {
        guard !name.isEmpty else { return "field name is empty" }
        let nameBytes = name.count
        guard nameBytes <= limits.maxFieldNameBytes else {
            return "field name is \(nameBytes) bytes; at most \(limits.maxFieldNameBytes) are allowed"
        }
        guard !name.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            return "field name contains a control character"
        }
        return nil
    }

    /// What is wrong with a field's role, range or style (DESIGN §12); nil when it fits.
    /// The value itself is never quoted: it may be private.
    private static func layoutProblem(_ field: Field) -> String? {
        if let problem = field.layout.problem { return problem }
        switch field.role {
        case nil, .title?, .value?, .detail?:
            return nil
        case .gauge?:
            guard case .number(let number) = field.value, let gauge = Double(number.text), gauge.isFinite else {
                return "role \"gauge\": value must be a number"
            }
            let range = field.gaugeRange
            guard range.contains(gauge) else {
                return "role \"gauge\": value lies outside its range [\(JSONWriter.text(of: range.lowerBound)), \(JSONWriter.text(of: range.upperBound))]"
            }
            return nil
        case .icon?:
            guard case .string(let name) = field.value, isIconName(name) else { return "role \"icon\": value \(iconRule)" }
            return nil
        case .date?:
            guard case .string(let text) = field.value, (try? RFC3339.parse(text)).map(RFC3339.isRepresentable) == true else {
                return "role \"date\": value must be an RFC 3339 date"
            }
            return nil
        }
    }
}

/// Walks a value once, checking depth and encoded size together.
///
/// Size is what the value costs as compact JSON: string bytes (escapes counted as
/// written, approximately), two quotes, separators, and each number's literal text.
/// Nothing is encoded, so no extra copy of a private value is made.
struct ValueBudget {
    enum Problem {
        case tooDeep, tooLarge

        func description(_ limits: TimelineLimits) -> String {
            switch self {
            case .tooDeep: "nests arrays and objects deeper than \(limits.maxNestingDepth) levels"
            case .tooLarge: "is larger than \(limits.maxValueBytes) bytes as JSON"
            }
        }
    }

    var remaining: Int
    let maxDepth: Int

    mutating func spend(_ bytes: Int) -> Problem? {
        remaining -= bytes
        return remaining < 0 ? .tooLarge : nil
    }

    mutating func check(_ value: JSONValue, depth: Int) -> Problem? {
        switch value {
        case .null: return spend(4)
        case .bool(let flag): return spend(flag ? 4 : 5)
        case .number(let number): return spend(number.text.utf8.count)
        case .string(let text): return spend(Self.encodedSize(text))
        case .array(let items):
            guard depth < maxDepth else { return .tooDeep }
            if let problem = spend(2 + max(items.count - 1, 0)) { return problem }
            for item in items {
                if let problem = check(item, depth: depth + 1) { return problem }
            }
            return nil
        case .object(let members):
            guard depth < maxDepth else { return .tooDeep }
            if let problem = spend(2 + max(members.count - 1, 0)) { return problem }
            for (key, item) in members {
                if let problem = spend(Self.encodedSize(key) + 1) { return problem }
                if let problem = check(item, depth: depth + 1) { return problem }
            }
            return nil
        }
    }

    static func encodedSize(_ text: String) -> Int {
        // Native strings are contiguous: a loop over a pointer, not the UTF-8 view's iterator.
        if let size = text.utf8.withContiguousStorageIfAvailable({ encodedSize(utf8: $0) }) { return size }
        var size = 2
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C: size += 2
            case 0..<0x20: size += 6
            default: size += 1
            }
        }
        return size
    }

    static func encodedSize(utf8: UnsafeBufferPointer<UInt8>) -> Int {
        let bytes = UnsafeRawBufferPointer(utf8)
        var size = 2 + bytes.count
        var index = JSONByteScan.firstSpecial(in: bytes, from: 0)
        while index < bytes.count {
            size += bytes[index] < 0x20 ? 5 : 1
            index = JSONByteScan.firstSpecial(in: bytes, from: index + 1)
        }
        return size
    }
}
