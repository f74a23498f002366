import WidgetModel

/// One field of a timeline entry: a JSON value and how it behaves when content is hidden.
///
/// A plain value is an ordinary field: shown in `content` and `redacted` modes, replaced
/// in a placeholder. ``privacySensitive(_:)`` marks it as SwiftUI's modifier does (hidden
/// whenever the presentation is redacted, e.g. on a locked lock screen);
/// ``unredacted()`` marks it as shown even in a placeholder (a city name, a label).
public struct FieldValue: Sendable, Hashable {
    /// The value, as the daemon stores it.
    public var value: JSONValue
    /// `nil` for an ordinary field.
    public var privacy: Privacy?
    /// What the field is on a drawn widget (DESIGN §12); `nil`: data for custom hosts.
    public var role: FieldRole?
    /// A gauge's bounds (`nil`: `[0, 1]`).
    public var range: GaugeRange?
    /// How a date is drawn.
    public var style: DateStyle?

    /// A field holding any JSON value.
    public init(json value: JSONValue, privacy: Privacy? = nil) {
        self.value = value
        self.privacy = privacy
    }

    /// A text field.
    public init(_ text: String) { self.init(json: .string(text)) }
    /// A whole-number field.
    public init(_ number: Int) { self.init(json: .number(JSONNumber(number))) }
    /// A number field.
    public init(_ number: Double) { self.init(json: .number(JSONNumber(number))) }
    /// A true/false field.
    public init(_ flag: Bool) { self.init(json: .bool(flag)) }

    /// SwiftUI's `privacySensitive(_:)`: hidden whenever the presentation is redacted.
    /// `false` makes the field ordinary again.
    public func privacySensitive(_ sensitive: Bool = true) -> FieldValue {
        var field = self
        field.privacy = sensitive ? .sensitive : nil
        return field
    }

    /// SwiftUI's `unredacted()`: shown even in a placeholder, so it must hold nothing private.
    public func unredacted() -> FieldValue {
        var field = self
        field.privacy = .public
        return field
    }

    /// The field as widgetd's model has it.
    var field: Field { Field(value: value, privacy: privacy, role: role, range: range, style: style) }
}

/// A value that is a field of an entry: ``FieldValue``, ``Gauge``, ``Text``.
public protocol FieldRepresentable: Sendable {
    /// The field it stands for.
    var fieldValue: FieldValue { get }
}

extension FieldValue: FieldRepresentable {
    public var fieldValue: FieldValue { self }
}

extension FieldValue: ExpressibleByStringLiteral {
    /// A text field from a literal.
    public init(stringLiteral text: String) { self.init(text) }
}

extension FieldValue: ExpressibleByIntegerLiteral {
    /// A whole-number field from a literal.
    public init(integerLiteral number: Int) { self.init(number) }
}

extension FieldValue: ExpressibleByFloatLiteral {
    /// A number field from a literal.
    public init(floatLiteral number: Double) { self.init(number) }
}

extension FieldValue: ExpressibleByBooleanLiteral {
    /// A true/false field from a literal.
    public init(booleanLiteral flag: Bool) { self.init(flag) }
}
