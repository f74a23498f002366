import FoundationEssentials

/// A structured logger, passed around as a value.
///
/// Each event has a level, a human-readable message, an optional event name
/// (`unlock_failed`) and dotted metadata (`peer.uid`, `widget.id`). Handlers decide
/// where it goes: the journal, stderr, or memory for tests.
///
/// Never pass secrets to a logger: no passcodes, key bytes, timeline content or field
/// values, in the message or in metadata. Log identifiers (widget ids, uids) and
/// outcomes only; logs outlive the daemon and are readable by administrators.
public struct Logger: Sendable {
    /// How important an event is; the raw value is the syslog priority.
    public enum Level: Int32, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case critical = 2
        case error = 3
        case warning = 4
        case notice = 5
        case info = 6
        case debug = 7

        /// Less important first: `debug < info < … < critical` (syslog numbers run the other way).
        public static func < (a: Level, b: Level) -> Bool { a.rawValue > b.rawValue }

        /// The level's name, e.g. `warning`.
        public var description: String {
            switch self {
            case .critical: "critical"
            case .error: "error"
            case .warning: "warning"
            case .notice: "notice"
            case .info: "info"
            case .debug: "debug"
            }
        }
    }

    /// Metadata keys and values; keys are dotted lowercase names such as `peer.uid`.
    public typealias Metadata = [String: String]

    /// Where events go.
    public let handler: any LogHandler
    /// Events less important than this are dropped.
    public var level: Level
    /// Metadata attached to every event of this logger.
    public var metadata: Metadata

    /// Creates a logger sending events at `level` or above to `handler`.
    public init(handler: any LogHandler, level: Level = .info, metadata: Metadata = [:]) {
        self.handler = handler
        self.level = level
        self.metadata = metadata
    }

    /// A logger with `key` set to `value` in its metadata, e.g. for one connection.
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata[key] = value
        return copy
    }

    /// Records an event if `level` is enabled. Never pass secrets (see ``Logger``).
    public func log(
        _ level: Level, _ message: @autoclosure () -> String, event: String? = nil, metadata: Metadata = [:]
    ) {
        guard level >= self.level else { return }
        let merged = metadata.isEmpty ? self.metadata : self.metadata.merging(metadata) { $1 }
        handler.log(LogRecord(level: level, message: message(), event: event, metadata: merged))
    }

    /// Records a debug event. Never pass secrets.
    public func debug(_ message: @autoclosure () -> String, event: String? = nil, metadata: Metadata = [:]) {
        log(.debug, message(), event: event, metadata: metadata)
    }

    /// Records an informational event. Never pass secrets.
    public func info(_ message: @autoclosure () -> String, event: String? = nil, metadata: Metadata = [:]) {
        log(.info, message(), event: event, metadata: metadata)
    }

    /// Records a normal but significant event (an unlock, a configuration reload). Never pass secrets.
    public func notice(_ message: @autoclosure () -> String, event: String? = nil, metadata: Metadata = [:]) {
        log(.notice, message(), event: event, metadata: metadata)
    }

    /// Records a warning. Never pass secrets.
    public func warning(_ message: @autoclosure () -> String, event: String? = nil, metadata: Metadata = [:]) {
        log(.warning, message(), event: event, metadata: metadata)
    }

    /// Records an error. Never pass secrets.
    public func error(_ message: @autoclosure () -> String, event: String? = nil, metadata: Metadata = [:]) {
        log(.error, message(), event: event, metadata: metadata)
    }

    /// Records a critical event. Never pass secrets.
    public func critical(_ message: @autoclosure () -> String, event: String? = nil, metadata: Metadata = [:]) {
        log(.critical, message(), event: event, metadata: metadata)
    }

    /// The logger a daemon started with `environment` should use: the journal when
    /// stderr is connected to it (`JOURNAL_STREAM`, as systemd sets it), else stderr.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment, level: Level = .info
    ) -> Logger {
        if JournalLogHandler.isStandardErrorJournal(environment: environment) {
            return Logger(handler: JournalLogHandler(), level: level)
        }
        return Logger(handler: StderrLogHandler(), level: level)
    }
}

/// One logged event.
public struct LogRecord: Sendable, Equatable {
    /// Its importance.
    public var level: Logger.Level
    /// A sentence for people.
    public var message: String
    /// A stable name for machines, e.g. `unlock_failed`.
    public var event: String?
    /// Structured metadata, e.g. `peer.uid`.
    public var metadata: Logger.Metadata

    /// Creates a record.
    public init(level: Logger.Level, message: String, event: String? = nil, metadata: Logger.Metadata = [:]) {
        self.level = level
        self.message = message
        self.event = event
        self.metadata = metadata
    }
}

/// Where a ``Logger``'s events go. Handlers may be called from any thread.
public protocol LogHandler: Sendable {
    /// Records one event.
    func log(_ record: LogRecord)
}
