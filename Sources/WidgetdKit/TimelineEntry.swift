import FoundationEssentials
import WidgetModel

/// WidgetKit's `TimelineEntry`: what a widget shows from `date` on.
///
/// Its fields are its stored properties (other than `date` and `relevance`) of type
/// ``FieldValue``, `String`, `Int`, `Double` or `Bool`, named as the properties are;
/// mark one with ``FieldValue/privacySensitive(_:)`` or ``FieldValue/unredacted()``.
/// An entry that wants other names or computed values implements ``fields`` itself.
public protocol TimelineEntry: Sendable {
    /// When the entry becomes current.
    var date: Date { get }
    /// How relevant the entry is, for hosts that rotate widgets (`nil`: no opinion).
    var relevance: TimelineEntryRelevance? { get }
    /// The entry's fields by name.
    var fields: [String: FieldValue] { get }
    /// What a host may perform on the entry: ``Button``s and ``Toggle``s (at most 8).
    var actions: [any WidgetActionConvertible] { get }
}

extension TimelineEntry {
    /// No opinion on relevance.
    public var relevance: TimelineEntryRelevance? { nil }

    /// No actions.
    public var actions: [any WidgetActionConvertible] { [] }

    /// The stored properties that are fields, by property name.
    public var fields: [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for child in Mirror(reflecting: self).children {
            guard let name = child.label, name != "date", name != "relevance" else { continue }
            switch child.value {
            case let value as any FieldRepresentable: fields[name] = value.fieldValue
            case let text as String: fields[name] = FieldValue(text)
            case let number as Int: fields[name] = FieldValue(number)
            case let number as Double: fields[name] = FieldValue(number)
            case let flag as Bool: fields[name] = FieldValue(flag)
            default: continue
            }
        }
        return fields
    }

    /// The entry as widgetd's model has it.
    var modelEntry: Entry {
        Entry(date: date, relevance: relevance?.model, fields: orderedFields, actions: actions.map(\.widgetAction))
    }

    /// The entry as a placeholder: its fields, without a date.
    var modelPlaceholder: Placeholder {
        Placeholder(fields: orderedFields, actions: actions.map(\.widgetAction))
    }

    /// ``fields`` in the order hosts draw them: those named like a stored property in
    /// the order the properties are declared, then any others by name.
    private var orderedFields: FieldList<Field> {
        var remaining = fields
        var ordered = FieldList<Field>()
        for child in Mirror(reflecting: self).children {
            guard let name = child.label, let value = remaining.removeValue(forKey: name) else { continue }
            ordered.append(name, value.field)
        }
        for name in remaining.keys.sorted() { ordered.append(name, remaining[name]!.field) }
        return ordered
    }
}

/// WidgetKit's `TimelineEntryRelevance`: a score, and for how long it holds.
public struct TimelineEntryRelevance: Sendable, Hashable {
    /// Higher is more relevant; only the order among a host's widgets matters.
    public var score: Double
    /// Seconds from the entry's date during which the score holds.
    public var duration: Double

    /// A relevance of `score` for `duration` seconds.
    public init(score: Double, duration: Double = 0) {
        self.score = score
        self.duration = duration
    }

    var model: Relevance { Relevance(score: score, duration: duration) }
}
