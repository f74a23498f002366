import WidgetModel

/// A presentation as one line of Waybar's custom-module JSON (`"return-type": "json"`).
///
/// Waybar reads `text` (the label), `tooltip`, `class` (CSS classes on the module) and
/// `alt` (the key `format-icons` is looked up by), as waybar-custom(5) documents. Both
/// `class` and `alt` are the mode (`content`, `redacted`, `placeholder`), so a style
/// sheet or an icon can say that the bar shows no content. A redacted field is always
/// the same bars, whatever the value the daemon sent in its place: nothing in the line
/// depends on the real value. Waybar reads the label and tooltip as Pango markup (its
/// default, `"escape": false`), so widget data is escaped and cannot inject markup;
/// control and bidirectional-format characters are replaced, as in every other output.
///
/// An entry with roles (DESIGN §12) fills the line from them instead of from field
/// names: `text` is the value (or the title), `tooltip` the details, one a line, and
/// `percentage` the first gauge, 0 to 100 of its range (0 when redacted: drawn empty).
/// `--field` still chooses the label's fields by name.
struct WaybarFormat {
    /// What a redacted field shows, whatever its value.
    static let redaction = "••••"
    /// Between the fields of the label.
    static let separator = " · "

    /// The fields the label shows, in this order; empty: every field, in the
    /// presentation's order (the provider's).
    let fields: [String]

    /// The JSON object, without a newline.
    func line(for presentation: Presentation) -> String {
        let entryFields = presentation.entry.fields
        let shown = fields.isEmpty ? entryFields.keys : fields.filter { entryFields[$0] != nil }
        let label = shown.map { Self.value(entryFields[$0]!, inLabel: true) }.joined(separator: Self.separator)

        var header = presentation.mode.rawValue
        if !presentation.reasons.isEmpty { header += " (" + presentation.reasons.map(\.rawValue).joined(separator: ", ") + ")" }
        if presentation.stale { header += " · stale" }
        // The surface as the command line spells it (`lock-screen`), as `get` shows it.
        let surface = SurfaceName.spelling(of: presentation.surface)
        var tooltip = [presentation.widget.description + " · " + surface, header]
        tooltip += entryFields.map { "\($0.name): " + Self.value($0.value, inLabel: false) }
        if let until = presentation.validUntil { tooltip.append("valid until " + RFC3339.format(until)) }

        var object: [String: JSONValue] = [
            "text": .string(Self.markupEscaped(TerminalText.sanitize(label))),
            "tooltip": .string(Self.markupEscaped(TerminalText.sanitize(tooltip.joined(separator: "\n")))),
            "class": .string(presentation.mode.rawValue),
            "alt": .string(presentation.mode.rawValue),
        ]
        if let roles = Self.roleMembers(presentation.entry, labelFromFields: !fields.isEmpty) {
            for (key, value) in roles { object[key] = value }
        }
        return JSONText.compact(.object(object))
    }

    /// `text`, `tooltip` and `percentage` from an entry's roles; nil when it has none.
    static func roleMembers(_ entry: PresentedEntry, labelFromFields: Bool) -> [String: JSONValue]? {
        let fields = entry.fields.map(\.value)
        guard fields.contains(where: { $0.role != nil }) else { return nil }
        var members: [String: JSONValue] = [:]
        if !labelFromFields {
            let label = fields.first { $0.role == .value } ?? fields.first { $0.role == .title }
            let text = label.map { value($0, inLabel: true) } ?? ""
            members["text"] = .string(markupEscaped(TerminalText.sanitize(text)))
        }
        let details = fields.filter { $0.role == .detail }.map { value($0, inLabel: false) }
        members["tooltip"] = .string(markupEscaped(TerminalText.sanitize(details.joined(separator: "\n"))))
        if let gauge = fields.first(where: { $0.role == .gauge }) {
            let percent = RoleLayout.fraction(gauge).map { Int(($0 * 100).rounded()) } ?? 0
            members["percentage"] = .number(JSONNumber(percent))
        }
        return members
    }

    /// A field as shown: bars when redacted; the label is one line.
    private static func value(_ field: PresentedField, inLabel: Bool) -> String {
        if field.redacted { return redaction }
        let text = JSONText.display(field.value)
        return inLabel ? text.split(whereSeparator: \.isNewline).joined(separator: " ") : text
    }

    /// `&`, `<` and `>` as Pango markup entities.
    static func markupEscaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}
