import FoundationEssentials
import Logging

/// widgetd logs through swift-log's `Logger`, with its own handlers (`LogHandlers.swift`):
/// the journal, stderr, or memory for tests. The daemon makes its logger explicitly and
/// passes it down (``standard(environment:level:)``), never through the process-wide
/// `LoggingSystem.bootstrap`, which can run only once per process and so not per test.
///
/// Each event has a level, a human-readable message, an event name, an optional error
/// and dotted metadata: the event API (`Logger.log(_:_:event:…)`, `with(_:_:)`) lives in
/// VarlinkTransport, the lowest module that logs, so the server logs as the service does.
///
/// Never pass secrets to a logger: no passcodes, key bytes, timeline content or field
/// values, in the message, the error or metadata. Log identifiers (widget ids, uids)
/// and outcomes only; logs outlive the daemon and are readable by administrators.
extension Logger {
    /// A logger labelled `widgetd` that sends events at `level` or above to `handler`.
    init(handler: some LogHandler, level: Level = .info) {
        self.init(label: "widgetd", factory: { _ in handler })
        logLevel = level
    }

    /// The logger a daemon started with `environment` should use: the journal when
    /// stderr is connected to it (`JOURNAL_STREAM`, as systemd sets it), else stderr.
    static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment, level: Level = .info
    ) -> Logger {
        if JournalLogHandler.isStandardErrorJournal(environment: environment) {
            return Logger(handler: JournalLogHandler(), level: level)
        }
        return Logger(handler: StderrLogHandler(), level: level)
    }
}

extension Logger.Level {
    /// The syslog priority the journal records (`PRIORITY=`): `critical` 2 … `debug` 7;
    /// syslog has nothing below debug, so `trace` is 7 too.
    var syslogPriority: Int32 {
        switch self {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }
}
