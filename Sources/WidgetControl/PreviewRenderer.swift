import FoundationEssentials
import WidgetModel

/// Draws a presentation as a boxed preview for a person at a terminal.
///
/// Fields are drawn in the presentation's order, which the caller gives as the reply
/// had it (the provider's, as every host draws them). Redacted fields are drawn as bars
/// in the shape of the value the daemon sent in their place (the placeholder's), which
/// says nothing about the real value. Values are sanitized so widget data cannot inject
/// terminal escapes. The box fits in `columns` (lines wrap at spaces, long words are
/// cut), and dates are in the local time zone. An entry whose fields have roles is
/// drawn as a widget is (DESIGN §12), by ``RoleLayout``, with no field names; the shown
/// entry's actions follow, with whether they run now.
struct PreviewRenderer {
    /// Whether to use ANSI colour.
    let color: Bool
    /// The terminal's width; `nil`: no limit but the values' own.
    var columns: Int? = nil
    /// The time dates are drawn against (`relative`, `timer`).
    var now: Date = Date()
    /// The local zone's offset from UTC at a date, in seconds (``LocalTime/offset(at:)``).
    var utcOffset: (Date) -> Int = { _ in 0 }

    /// The narrowest box drawn, whatever the terminal says.
    static let minimumColumns = 24

    /// Values are wrapped at this many characters.
    static let maximumValueWidth = 60

    /// What the bars of a redacted field without a placeholder value look like.
    static let emptyRedaction = "████"

    /// A line as styled pieces; its width counts only the text.
    private struct Line {
        var pieces: [(text: String, style: TerminalText.Style?)] = []
        var width: Int { pieces.reduce(0) { $0 + $1.text.count } }

        mutating func add(_ text: String, _ style: TerminalText.Style? = nil) { pieces.append((text, style)) }

        /// The line cut into lines of at most `width` characters, at spaces where it can,
        /// each piece keeping its style.
        func wrapped(to width: Int) -> [Line] {
            guard self.width > width, width > 0 else { return [self] }
            var lines: [Line] = []
            var current = Line()
            for piece in pieces {
                // Words with the space after them, so that spacing survives a join.
                var words: [Substring] = []
                var start = piece.text.startIndex
                for index in piece.text.indices where piece.text[index] == " " {
                    words.append(piece.text[start...index])
                    start = piece.text.index(after: index)
                }
                if start < piece.text.endIndex { words.append(piece.text[start...]) }
                for var word in words {
                    while !word.isEmpty {
                        let room = width - current.width
                        let visible = word.count - (word.hasSuffix(" ") ? 1 : 0)
                        if visible <= room {
                            current.add(String(word), piece.style)
                            word = ""
                        } else if current.width > 0 && visible <= width {
                            lines.append(current.trimmed)
                            current = Line()
                        } else {
                            current.add(String(word.prefix(room)), piece.style)
                            word = word.dropFirst(room)
                            lines.append(current.trimmed)
                            current = Line()
                        }
                    }
                }
            }
            if current.width > 0 { lines.append(current.trimmed) }
            return lines
        }

        /// Without the spaces that end it.
        var trimmed: Line {
            var line = self
            while let last = line.pieces.last, last.text.hasSuffix(" ") {
                let text = String(last.text.dropLast())
                line.pieces[line.pieces.count - 1].text = text
                if text.isEmpty { line.pieces.removeLast() }
            }
            return line
        }
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
        var title = " \(TerminalText.sanitize(presentation.widget.description)) · \(TerminalText.sanitize(surface)) "
        // "┌─", the title, at least one "─", a space's room and "┐": cut a title that would not fit.
        if let columns, title.count > max(columns, Self.minimumColumns) - 5 {
            title = String(title.prefix(max(columns, Self.minimumColumns) - 7)) + "… "
        }
        var header = Line()
        header.add(presentation.mode.rawValue, modeStyle(presentation.mode))
        // The mode names the placeholder already: its reason is said in words instead.
        let reasons = presentation.reasons.filter { $0 != .placeholder }.map(\.rawValue)
        if presentation.mode == .placeholder { header.add(": " + (placeholderReason ?? Self.placeholderCauses)) }
        if !reasons.isEmpty { header.add(" (" + reasons.joined(separator: ", ") + ")") }
        if presentation.stale { header.add(" · stale", .yellow) }
        if presentation.luminanceReduced { header.add(" · luminance reduced", .dim) }

        // The widest text a row may hold: "│ " and " │" around it.
        let textWidth = columns.map { max($0, Self.minimumColumns) - 4 }
        var body: [Line] = []
        let layout = RoleLayout(now: now, utcOffset: utcOffset)
        let drawnByRoles = layout.hasRoles(presentation.entry)
        for drawn in layout.lines(presentation.entry) {
            var line = Line()
            for piece in drawn { line.add(piece.text, piece.style) }
            body.append(line)
        }
        let names = drawnByRoles ? [] : Array(presentation.entry.fields.keys)
        let nameWidth = names.map { TerminalText.sanitize($0).count }.max() ?? 0
        let valueWidth = max(Self.minimumColumns / 2, min(Self.maximumValueWidth, (textWidth ?? .max) - nameWidth - 2))
        for name in names {
            let field = presentation.entry.fields[name]!
            let redacted = field.redacted
            var text = TerminalText.sanitize(JSONText.display(field.value))
            if redacted { text = field.value == .null ? Self.emptyRedaction : TerminalText.bars(shapedLike: text) }
            let label = TerminalText.sanitize(name)
            for (index, part) in wrap(text, to: valueWidth).enumerated() {
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
        if let date = presentation.entry.date { dates.append("entry " + LocalTime.format(date, offset: utcOffset(date))) }
        if let until = presentation.validUntil { dates.append("valid until " + LocalTime.format(until, offset: utcOffset(until))) }
        if !dates.isEmpty {
            var line = Line()
            line.add(dates.joined(separator: " · "), .dim)
            footer.append(line)
        }

        let headers = textWidth.map { header.wrapped(to: $0) } ?? [header]
        if let textWidth {
            footer = footer.flatMap { $0.wrapped(to: textWidth) }
            body = body.flatMap { $0.width > textWidth ? $0.wrapped(to: textWidth) : [$0] }
            actions = actions.flatMap { $0.wrapped(to: textWidth) }
        }
        let inner = max((headers + body + actions + footer).map(\.width).max() ?? 0, title.count + 1) + 2
        var out = "┌─" + styled(title, .bold) + String(repeating: "─", count: inner - title.count - 1) + "┐\n"
        for line in headers { out += row(line, inner) }
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

    /// Splits at newlines, then hard-wraps long lines at `width` characters (bars keep
    /// their shape: no word breaking that could hint at the hidden text's words).
    private func wrap(_ text: String, to width: Int) -> [String] {
        var parts: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(line)
            repeat {
                parts.append(String(rest.prefix(width)))
                rest = rest.dropFirst(width)
            } while !rest.isEmpty
        }
        return parts
    }
}
