import CSystemd
import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// One logged event as widgetd's handlers write it: the logger's metadata and the
/// event's merged, the event name and the error taken out of swift-log's forms.
struct LogRecord: Sendable, Equatable {
    /// Its importance.
    var level: Logger.Level
    /// A sentence for people.
    var message: String
    /// A stable name for machines, e.g. `unlock_failed` (metadata key `event`).
    var event: String?
    /// Structured metadata, e.g. `peer.uid`; the error, if any, is under `error`.
    var metadata: [String: String]

    /// Creates a record.
    init(level: Logger.Level, message: String, event: String? = nil, metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.event = event
        self.metadata = metadata
    }

    /// The record of `event` logged by a logger carrying `context`; the event's own
    /// metadata wins over the logger's.
    init(_ event: LogEvent, context: Logger.Metadata) {
        var metadata: [String: String] = [:]
        for (key, value) in context { metadata[key] = value.description }
        for (key, value) in event.metadata ?? [:] { metadata[key] = value.description }
        if let error = event.error { metadata[Logger.errorKey] = "\(error)" }
        let name = metadata.removeValue(forKey: Logger.eventKey)
        self.init(level: event.level, message: event.message.description, event: name, metadata: metadata)
    }
}

/// A swift-log handler that writes whole ``LogRecord``s: the metadata a logger carries
/// and its level are values of each copy (as swift-log requires), the writing is the
/// handler's own.
protocol RecordLogHandler: LogHandler {
    /// Writes one event.
    func write(_ record: LogRecord)
}

extension RecordLogHandler {
    /// One metadata value of this handler's logger.
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the event with this logger's metadata (swift-log checked the level).
    func log(event: LogEvent) {
        write(LogRecord(event, context: metadata))
    }
}

/// Writes events to systemd's journal with structured fields.
///
/// Fields: `MESSAGE`, `PRIORITY` (``Logging/Logger/Level/syslogPriority``),
/// `SYSLOG_IDENTIFIER=widgetd`, `WIDGETD_EVENT` for the event name, and each metadata
/// key in journal form (`peer.uid` → `PEER_UID`, the error → `ERROR`).
struct JournalLogHandler: RecordLogHandler {
    /// Metadata of this handler's logger.
    var metadata: Logger.Metadata = [:]
    /// Events below this level are dropped (by swift-log's `Logger`).
    var logLevel: Logger.Level = .info

    /// Creates a handler; the journal connection is opened by libsystemd on first use.
    init() {}

    /// Sends the record to the journal; a journal that is gone drops it.
    func write(_ record: LogRecord) {
        let cStrings = Self.fields(for: record).map { strdup($0)! }
        defer { cStrings.forEach { free($0) } }
        var vectors = cStrings.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
        // Logging must not fail the daemon; a journal that is gone drops the event.
        _ = sd_journal_sendv(&vectors, Int32(vectors.count))
    }

    /// The journal fields of a record, `NAME=value` each.
    static func fields(for record: LogRecord) -> [String] {
        var fields = [
            "MESSAGE=\(record.message)",
            "PRIORITY=\(record.level.syslogPriority)",
            "SYSLOG_IDENTIFIER=widgetd",
        ]
        if let event = record.event { fields.append("WIDGETD_EVENT=\(event)") }
        for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
            guard let name = fieldName(for: key) else { continue }
            fields.append("\(name)=\(value)")
        }
        return fields
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
    static func isStandardErrorJournal(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}

/// Writes one human-readable line per event to stderr:
/// `warning: message event=name error=… peer.uid=1000`.
struct StderrLogHandler: RecordLogHandler {
    /// Metadata of this handler's logger.
    var metadata: Logger.Metadata = [:]
    /// Events below this level are dropped (by swift-log's `Logger`).
    var logLevel: Logger.Level = .info

    /// Creates a handler.
    init() {}

    /// Writes the record's line to stderr.
    func write(_ record: LogRecord) {
        var line = Array(Self.format(record).utf8)
        line.append(UInt8(ascii: "\n"))
        // One write per line so that lines of concurrent writers do not interleave.
        _ = line.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// The line for a record, without its newline: the level's name, the message, the
    /// event name, then the metadata sorted by key.
    static func format(_ record: LogRecord) -> String {
        var line = "\(record.level): \(record.message)"
        if let event = record.event { line += " event=\(event)" }
        for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        return line
    }
}

/// Keeps events in memory, for tests to inspect. Copies share what they recorded.
struct InMemoryLogHandler: RecordLogHandler {
    /// The records, shared by every copy of the handler (and so by every logger made from it).
    private final class Storage: Sendable {
        let records = Mutex<[LogRecord]>([])
    }

    private let storage = Storage()
    /// Metadata of this handler's logger.
    var metadata: Logger.Metadata = [:]
    /// Events below this level are dropped (by swift-log's `Logger`).
    var logLevel: Logger.Level = .info

    /// Creates an empty handler.
    init() {}

    /// Appends the record.
    func write(_ record: LogRecord) {
        storage.records.withLock { $0.append(record) }
    }

    /// Every event recorded so far, oldest first.
    var records: [LogRecord] {
        storage.records.withLock { $0 }
    }

    /// The events with the given event name.
    func records(event: String) -> [LogRecord] {
        records.filter { $0.event == event }
    }
}
