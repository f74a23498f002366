import FoundationEssentials
import Glibc
import WidgetModel

/// Dates for a person: RFC 3339 in the local time zone (`2026-11-29T14:00:00+01:00`),
/// so that a preview's dates read as the lock screen's clock does. `--json` keeps the
/// daemon's UTC text.
package enum LocalTime {
    /// The local zone's offset from UTC at `date`, in seconds east (`localtime_r`, which
    /// reads `TZ` and `/etc/localtime`).
    package static func offset(at date: Date) -> Int {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return parts.tm_gmtoff
    }

    /// `date` as RFC 3339 at `offset` seconds east of UTC; `Z` for UTC itself.
    static func format(_ date: Date, offset: Int) -> String {
        guard offset != 0 else { return RFC3339.format(date) }
        let shifted = RFC3339.format(date.addingTimeInterval(Double(offset)))
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return String(shifted.dropLast()) + sign + two(minutes / 60) + ":" + two(minutes % 60)
    }
}

/// The width a preview is drawn to: `COLUMNS`, else the terminal's, else none.
enum TerminalWidth {
    static func current(isTerminal: Bool, environment: [String: String]) -> Int? {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        guard isTerminal else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
