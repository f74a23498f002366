import FoundationEssentials
import WidgetModel

/// What a field is on a drawn widget (DESIGN §12), as SwiftUI views say it.
extension FieldValue {
    /// The field drawn as `role`: `.title`, `.value`, `.detail`, `.icon`, `.gauge`, `.date`.
    public func role(_ role: FieldRole) -> FieldValue {
        var field = self
        field.role = role
        return field
    }

    /// A freedesktop icon name (`weather-clear`), drawn from the host's icon theme.
    public static func icon(_ name: String) -> FieldValue { FieldValue(name).role(.icon) }
}

/// SwiftUI's `Gauge(value:in:)`: a number within its range, drawn as a ring or a bar.
public struct Gauge: FieldRepresentable {
    public let fieldValue: FieldValue

    /// A gauge at `value` within `bounds` (default `0...1`).
    public init(value: Double, in bounds: ClosedRange<Double> = 0...1) {
        var field = FieldValue(value).role(.gauge)
        if bounds != 0...1 { field.range = GaugeRange(lowerBound: bounds.lowerBound, upperBound: bounds.upperBound) }
        fieldValue = field
    }
}

/// SwiftUI's `Text` on a widget: a string with a role, or `Text(date, style:)`, a date
/// the host draws in its style and keeps ticking with no new entry.
public struct Text: FieldRepresentable {
    /// SwiftUI's `Text.DateStyle`: `.time`, `.date`, `.relative` or `.timer`.
    public typealias DateStyle = WidgetModel.DateStyle

    public let fieldValue: FieldValue

    /// A text field; with a role, drawn as that role (default: a detail).
    public init(_ text: String, role: FieldRole = .detail) {
        fieldValue = FieldValue(text).role(role)
    }

    /// `Text(date, style: .timer)`: a date drawn as `04:59`, `in 5 min`, `14:05` or `6 Dec 2026`.
    public init(_ date: Date, style: DateStyle) {
        var field = FieldValue(RFC3339.format(date)).role(.date)
        field.style = style
        fieldValue = field
    }
}
