/// Text made safe and styled for a terminal.
enum TerminalText {
    /// An ANSI style for part of a line.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
    }

    /// Replaces control and format characters (escape sequences, bidi overrides) with `�`,
    /// so a widget's data cannot move the cursor or recolour the terminal.
    static func sanitize(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control where scalar != "\n", .format:
                result.append("\u{FFFD}")
            default:
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `text` in `style` when colour is on.
    static func styled(_ text: String, _ style: Style?, color: Bool) -> String {
        guard color, let style, !text.isEmpty else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }

    /// Bars in the shape of `text`: every visible character becomes `█`, spacing is kept.
    static func bars(shapedLike text: String) -> String {
        String(text.map { $0.isWhitespace ? $0 : "█" })
    }
}
