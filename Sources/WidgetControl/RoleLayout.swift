import FoundationEssentials
import Glibc
import WidgetModel

/// An entry drawn from its fields' roles (DESIGN §12), as text lines for a terminal:
/// the icon and title, the value, then gauges as bars, dates in their style and
/// details, in field order; never a field's name. Fields without a role are data for
/// custom hosts and are not drawn. The shown entry's actions are lines too, each with
/// its id (what `widgetctl act` names) and whether it runs now.
///
/// Redaction keeps the role: a redacted text is bars shaped like the stand-in's value,
/// a redacted gauge an empty bar with no figure, a redacted date bars that never tick,
/// a redacted icon the stand-in's icon.
struct RoleLayout {
    /// One styled piece of a line.
    typealias Piece = (text: String, style: TerminalText.Style?)

    /// The time `relative` and `timer` dates are drawn against.
    let now: Date
    /// The offset from UTC, in seconds, that `time` and `date` dates are drawn in.
    let utcOffset: (Date) -> Int

    /// Cells of a gauge's bar.
    static let gaugeWidth = 20

    /// Whether any field of `entry` has a role: then only roles are drawn.
    func hasRoles(_ entry: PresentedEntry) -> Bool {
        entry.fields.contains { $0.value.role != nil }
    }

    /// The lines of an entry with roles; none when it has no role.
    func lines(_ entry: PresentedEntry) -> [[Piece]] {
        guard hasRoles(entry) else { return [] }
        let fields = entry.fields.map(\.value)
        var lines: [[Piece]] = []
        var head: [Piece] = []
        if let icon = fields.first(where: { $0.role == .icon }) {
            head.append(("[" + TerminalText.sanitize(Self.text(icon.value)) + "]", .dim))
        }
        if let title = fields.first(where: { $0.role == .title }) {
            if !head.isEmpty { head.append((" ", nil)) }
            head.append((text(of: title), title.redacted ? .dim : .bold))
        }
        if !head.isEmpty { lines.append(head) }
        for value in fields where value.role == .value {
            for part in text(of: value).split(separator: "\n", omittingEmptySubsequences: false) {
                lines.append([(String(part), value.redacted ? .dim : .bold)])
            }
        }
        for field in fields {
            switch field.role {
            case .gauge?: lines.append([(Self.bar(field), field.redacted ? .dim : nil)])
            case .date?: lines.append([(date(field), .dim)])
            case .detail?:
                for part in text(of: field).split(separator: "\n", omittingEmptySubsequences: false) {
                    lines.append([(String(part), .dim)])
                }
            case .title?, .value?, .icon?, nil: break
            }
        }
        return lines
    }

    /// One line per action: `• Title (id) · toggle, off · available`, or `needs unlock`.
    func actionLines(_ actions: [PresentedAction]) -> [[Piece]] {
        actions.map { action in
            var title = TerminalText.sanitize(action.title ?? "")
            if action.redacted {
                title = action.title.map { TerminalText.bars(shapedLike: TerminalText.sanitize($0)) } ?? PreviewRenderer.emptyRedaction
            }
            var line: [Piece] = [("• ", nil), (title, action.redacted ? .dim : .bold), (" (" + TerminalText.sanitize(action.id) + ")", nil)]
            if action.kind == .toggle { line.append((" · toggle, " + ((action.isOn ?? false) ? "on" : "off"), nil)) }
            line.append((" · ", nil))
            line.append(action.available ? ("available", .green) : ("needs " + (action.requires ?? PresentedAction.unlock), .yellow))
            return line
        }
    }

    /// Whether a redraw changes the entry's drawing as time passes: a date in `relative`
    /// or `timer` style that is not redacted (a redacted one never ticks).
    static func ticks(_ entry: PresentedEntry) -> Bool {
        entry.fields.contains { field in
            field.value.role == .date && !field.value.redacted && (field.value.style == .timer || field.value.style == .relative)
        }
    }

    /// A text field as drawn: its value, or bars shaped like the stand-in's.
    private func text(of field: PresentedField) -> String {
        let text = TerminalText.sanitize(Self.text(field.value))
        guard field.redacted else { return text }
        return field.value == .null ? PreviewRenderer.emptyRedaction : TerminalText.bars(shapedLike: text)
    }

    private static func text(_ value: JSONValue) -> String {
        JSONText.display(value)
    }

    // MARK: Gauges

    /// Where a gauge's value lies in its range, from 0 to 1; `nil` when redacted or not a number.
    static func fraction(_ field: PresentedField) -> Double? {
        guard !field.redacted, case .number(let number) = field.value else { return nil }
        let range = field.range ?? .unit
        let span = range.upperBound - range.lowerBound
        guard span > 0 else { return number.doubleValue >= range.upperBound ? 1 : 0 }
        return min(max((number.doubleValue - range.lowerBound) / span, 0), 1)
    }

    /// A gauge as a bar: `██████████░░░░░░░░░░ 50%`; redacted, the empty bar alone.
    static func bar(_ field: PresentedField) -> String {
        guard let fraction = fraction(field) else { return String(repeating: "░", count: gaugeWidth) }
        let filled = Int((fraction * Double(gaugeWidth)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "░", count: gaugeWidth - filled)
            + " \(Int((fraction * 100).rounded()))%"
    }

    // MARK: Dates

    /// A date in its style (DESIGN §12); bars when redacted or not a date.
    private func date(_ field: PresentedField) -> String {
        guard !field.redacted, case .string(let text) = field.value, let date = try? RFC3339.parse(text) else {
            return PreviewRenderer.emptyRedaction
        }
        return Self.format(date, style: field.style ?? .time, now: now, utcOffset: utcOffset(date))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as `Text(date, style:)` draws it: `14:05`, `6 Dec 2026`, `in 5 min` or
    /// `2 h ago`, `04:59` (counting down to the date, then up from it).
    static func format(_ date: Date, style: DateStyle, now: Date, utcOffset: Int) -> String {
        let seconds = Int((date.timeIntervalSince1970 + Double(utcOffset)).rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let ofDay = seconds - days * 86_400
        switch style {
        case .time:
            return pad(ofDay / 3600) + ":" + pad(ofDay % 3600 / 60)
        case .date:
            let (year, month, day) = civil(fromDays: days)
            return "\(day) \(months[month - 1]) \(year)"
        case .relative:
            let delta = Int((date.timeIntervalSince(now)).rounded(.towardZero))
            let distance = abs(delta)
            let amount: String
            switch distance {
            case ..<60: return "now"
            case ..<3600: amount = "\(distance / 60) min"
            case ..<86_400: amount = "\(distance / 3600) h"
            default: amount = "\(distance / 86_400) d"
            }
            return delta > 0 ? "in " + amount : amount + " ago"
        case .timer:
            let distance = Int(abs(date.timeIntervalSince(now)).rounded(.down))
            let hours = distance / 3600
            let rest = pad(distance % 3600 / 60) + ":" + pad(distance % 60)
            return hours > 0 ? "\(hours):" + rest : rest
        }
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Year, month and day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
