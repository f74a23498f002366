/// Durations as a person reads them: `4 min 12 s`, `1 h`, `45 s`.
enum DurationText {
    /// Formats `seconds`, rounded up so "try again in" never says too soon.
    static func format(seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0 s" }
        let total = Int(min(seconds, Double(Int.max / 2)).rounded(.up))
        let hours = total / 3600, minutes = (total % 3600) / 60, rest = total % 60
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours) h") }
        if minutes > 0 { parts.append("\(minutes) min") }
        // Seconds matter only while the wait is under an hour.
        if rest > 0 && hours == 0 { parts.append("\(rest) s") }
        return parts.joined(separator: " ")
    }
}
