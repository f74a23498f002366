import CSystemd
import FoundationEssentials
import Glibc
import Synchronization

/// Writes events to systemd's journal with structured fields.
///
/// Fields: `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER=widgetd`, `WIDGETD_EVENT` for the
/// event name, and each metadata key in journal form (`peer.uid` → `PEER_UID`).
public struct JournalLogHandler: LogHandler {
    /// Creates a handler; the journal connection is opened by libsystemd on first use.
    public init() {}

    /// Sends the record to the journal; a journal that is gone drops it.
    public func log(_ record: LogRecord) {
        var fields = [
            "MESSAGE=\(record.message)",
            "PRIORITY=\(record.level.rawValue)",
            "SYSLOG_IDENTIFIER=widgetd",
        ]
        if let event = record.event { fields.append("WIDGETD_EVENT=\(event)") }
        for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
            guard let name = Self.fieldName(for: key) else { continue }
            fields.append("\(name)=\(value)")
        }
        let cStrings = fields.map { strdup($0)! }
        defer { cStrings.forEach { free($0) } }
        var vectors = cStrings.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
        // Logging must not fail the daemon; a journal that is gone drops the event.
        _ = sd_journal_sendv(&vectors, Int32(vectors.count))
    }

    /// The journal field name for a metadata key: uppercase, `.` and `-` as `_`, other
    /// characters dropped; `nil` when nothing valid remains.
    static func fieldName(for key: String) -> String? {
        var name = ""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "a"..."z": name.unicodeScalars.append(Unicode.Scalar(scalar.value - 32)!)
            case "A"..."Z", "0"..."9": name.unicodeScalars.append(scalar)
            case ".", "-", "_": name.append("_")
            default: continue
            }
        }
        // Journal fields starting with "_" are trusted fields set by journald itself.
        while name.hasPrefix("_") { name.removeFirst() }
        guard let first = name.first, !first.isNumber else { return nil }
        return String(name.prefix(64))
    }

    /// Whether stderr is the stream systemd connected to the journal (`JOURNAL_STREAM=DEV:INODE`).
    public static func isStandardErrorJournal(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}

/// Writes one human-readable line per event to stderr:
/// `warning: message event=name peer.uid=1000`.
public struct StderrLogHandler: LogHandler {
    /// Creates a handler.
    public init() {}

    /// Writes the record's line to stderr.
    public func log(_ record: LogRecord) {
        var line = Array(Self.format(record).utf8)
        line.append(UInt8(ascii: "\n"))
        // One write per line so that lines of concurrent writers do not interleave.
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// The line for a record, without its newline.
    public static func format(_ record: LogRecord) -> String {
        var line = "\(record.level): \(record.message)"
        if let event = record.event { line += " event=\(event)" }
        for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        return line
    }
}

/// Keeps events in memory, for tests to inspect.
public final class InMemoryLogHandler: LogHandler {
    private let storage = Mutex<[LogRecord]>([])

    /// Creates an empty handler.
    public init() {}

    /// Appends the record.
    public func log(_ record: LogRecord) {
        storage.withLock { $0.append(record) }
    }

    /// Every event recorded so far, oldest first.
    public var records: [LogRecord] {
        storage.withLock { $0 }
    }

    /// The events with the given event name.
    public func records(event: String) -> [LogRecord] {
        records.filter { $0.event == event }
    }
}
