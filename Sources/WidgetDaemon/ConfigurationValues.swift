/// Values written the way systemd writes them, so that an administrator who knows
/// unit files knows widgetd's configuration too (`systemd.time(7)`, `systemd.syntax(7)`).
enum ConfigurationValues {
    /// A time span in seconds: `10`, `10s`, `1.5s`, `500ms`, `5min`, `1h 30min`, `72h`,
    /// `2d`, `1w`; `infinity` is `Double.infinity`. A bare number is seconds, as in
    /// every `…Sec=` option of systemd. `nil` when the text is not a time span.
    static func timeSpan(_ text: String) -> Double? {
        let text = text.trimmingCharacters(in: " \t")
        if text == "infinity" { return .infinity }
        var total = 0.0
        var rest = Substring(text)
        var sawComponent = false
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.isEmpty { break }
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count).drop { $0 == " " || $0 == "\t" }
            let unit = rest.prefix { $0.isLetter || $0 == "µ" }
            rest = rest.dropFirst(unit.count)
            guard let multiplier = unitSeconds[String(unit)] else { return nil }
            // A bare number is allowed only alone or as the last component ("1min 30").
            if unit.isEmpty, !rest.drop(while: { $0 == " " || $0 == "\t" }).isEmpty { return nil }
            total += value * multiplier
            sawComponent = true
        }
        return sawComponent && total.isFinite ? total : nil
    }

    /// systemd's units and their length in seconds; the empty unit is seconds.
    private static let unitSeconds: [String: Double] = [
        "": 1,
        "us": 1e-6, "usec": 1e-6, "µs": 1e-6,
        "ms": 1e-3, "msec": 1e-3,
        "s": 1, "sec": 1, "second": 1, "seconds": 1,
        "m": 60, "min": 60, "minute": 60, "minutes": 60,
        "h": 3_600, "hr": 3_600, "hour": 3_600, "hours": 3_600,
        "d": 86_400, "day": 86_400, "days": 86_400,
        "w": 604_800, "week": 604_800, "weeks": 604_800,
        "M": 2_629_800, "month": 2_629_800, "months": 2_629_800,
        "y": 31_557_600, "year": 31_557_600, "years": 31_557_600,
    ]

    /// A boolean as systemd accepts it: `1`, `yes`, `y`, `true`, `t`, `on` and `0`,
    /// `no`, `n`, `false`, `f`, `off`, in any case; `nil` otherwise.
    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "yes", "y", "true", "t", "on": true
        case "0", "no", "n", "false", "f", "off": false
        default: nil
        }
    }
}

extension StringProtocol {
    /// The text without the given leading and trailing characters.
    fileprivate func trimmingCharacters(in set: String) -> String {
        guard let first = firstIndex(where: { !set.contains($0) }) else { return "" }
        let last = lastIndex(where: { !set.contains($0) })!
        return String(self[first...last])
    }
}
