import FoundationEssentials
import WidgetModel

/// Draws a presentation as a boxed preview for a person at a terminal.
///
/// Redacted fields are drawn as bars in the shape of the value the daemon sent in
/// their place (the placeholder's), which says nothing about the real value. Values
/// are sanitized so widget data cannot inject terminal escapes. An entry whose fields
/// have roles is drawn as a widget is (DESIGN §12), by ``RoleLayout``, with no field
/// names; the shown entry's actions follow, with whether they run now.
struct PreviewRenderer {
    /// Whether to use ANSI colour.
    let color: Bool
    /// The time dates are drawn against (`relative`, `timer`).
    var now: Date = Date()
    /// The offset from UTC, in seconds, that `time` and `date` dates are drawn in.
    var utcOffset: (Date) -> Int = LocalTime.offset(at:)

    /// Values are wrapped at this many characters.
    static let maximumValueWidth = 60

    /// What the bars of a redacted field without a placeholder value look like.
    static let emptyRedaction = "████"

    /// A line as styled pieces; its width counts only the text.
    private struct Line {
        var pieces: [(text: String, style: TerminalText.Style?)] = []
        var width: Int { pieces.reduce(0) { $0 + $1.text.count } }

        mutating func add(_ text: String, _ style: TerminalText.Style? = nil) { pieces.append((text, style)) }
    }

    /// What a placeholder's header says when the caller knows no more: every cause
    /// DESIGN §4 names for one.
    static let placeholderCauses =
        "content unavailable: not unlocked since widgetd started, locked, or no readable timeline stored"

    /// The preview, ending with a newline. A placeholder's header says why in words:
    /// `placeholderReason` when the caller found it out, else ``placeholderCauses``.
    func render(_ presentation: Presentation, placeholderReason: String? = nil) -> String {
        // The surface as the command line spells it (`lock-screen`), the way it was asked for.
        let surface = SurfaceName.spelling(of: presentation.surface)
        let title = " \(TerminalText.sanitize(presentation.widget.description)) · \(TerminalText.sanitize(surface)) "
        var header = Line()
        header.add(presentation.mode.rawValue, modeStyle(presentation.mode))
        // The mode names the placeholder already: its reason is said in words instead.
        let reasons = presentation.reasons.filter { $0 != .placeholder }.map(\.rawValue)
        if presentation.mode == .placeholder { header.add(": " + (placeholderReason ?? Self.placeholderCauses)) }
        if !reasons.isEmpty { header.add(" (" + reasons.joined(separator: ", ") + ")") }
        if presentation.stale { header.add(" · stale", .yellow) }
        if presentation.luminanceReduced { header.add(" · luminance reduced", .dim) }

        var body: [Line] = []
        let layout = RoleLayout(now: now, utcOffset: utcOffset)
        let drawnByRoles = layout.hasRoles(presentation.entry)
        let names = presentation.entry.fields.keys.sorted()
        for drawn in layout.lines(presentation.entry) {
            var line = Line()
            for piece in drawn { line.add(piece.text, piece.style) }
            body.append(line)
        }
        let nameWidth = names.map { TerminalText.sanitize($0).count }.max() ?? 0
        for name in names where !drawnByRoles {
            let field = presentation.entry.fields[name]!
            let redacted = field.redacted
            var text = TerminalText.sanitize(JSONText.display(field.value))
            if redacted { text = field.value == .null ? Self.emptyRedaction : TerminalText.bars(shapedLike: text) }
            let label = TerminalText.sanitize(name)
            for (index, part) in wrap(text).enumerated() {
                var line = Line()
                line.add(index == 0 ? label + String(repeating: " ", count: nameWidth - label.count) : String(repeating: " ", count: nameWidth))
                line.add("  ")
                line.add(part, redacted ? .dim : nil)
                body.append(line)
            }
        }
        if body.isEmpty {
            var line = Line()
            line.add("(no fields)", .dim)
            body.append(line)
        }

        var actions: [Line] = []
        for drawn in layout.actionLines(presentation.actions) {
            var line = Line()
            for piece in drawn { line.add(piece.text, piece.style) }
            actions.append(line)
        }

        var footer: [Line] = []
        var dates: [String] = []
        if let date = presentation.entry.date { dates.append("entry " + RFC3339.format(date)) }
        if let until = presentation.validUntil { dates.append("valid until " + RFC3339.format(until)) }
        if !dates.isEmpty {
            var line = Line()
            line.add(dates.joined(separator: " · "), .dim)
            footer.append(line)
        }

        let inner = max(([header] + body + actions + footer).map(\.width).max() ?? 0, title.count + 1) + 2
        var out = "┌─" + styled(title, .bold) + String(repeating: "─", count: inner - title.count - 1) + "┐\n"
        out += row(header, inner)
        out += "├" + String(repeating: "─", count: inner) + "┤\n"
        for line in body { out += row(line, inner) }
        if !actions.isEmpty {
            out += "├" + String(repeating: "─", count: inner) + "┤\n"
            for line in actions { out += row(line, inner) }
        }
        if !footer.isEmpty {
            out += "├" + String(repeating: "─", count: inner) + "┤\n"
            for line in footer { out += row(line, inner) }
        }
        out += "└" + String(repeating: "─", count: inner) + "┘\n"
        return out
    }

    private func row(_ line: Line, _ inner: Int) -> String {
        let text = line.pieces.map { styled($0.text, $0.style) }.joined()
        return "│ " + text + String(repeating: " ", count: inner - 2 - line.width) + " │\n"
    }

    private func styled(_ text: String, _ style: TerminalText.Style?) -> String {
        TerminalText.styled(text, style, color: color)
    }

    private func modeStyle(_ mode: PresentationMode) -> TerminalText.Style {
        switch mode {
        case .content: .green
        case .redacted: .yellow
        case .placeholder: .red
        }
    }

    /// Splits at newlines, then hard-wraps long lines.
    private func wrap(_ text: String) -> [String] {
        var parts: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(line)
            repeat {
                parts.append(String(rest.prefix(Self.maximumValueWidth)))
                rest = rest.dropFirst(Self.maximumValueWidth)
            } while !rest.isEmpty
        }
        return parts
    }
}
