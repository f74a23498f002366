import Logging

/// widgetd's events, through swift-log's `Logger`: one event API for the transport and
/// the service, here in the lowest module that logs (the handlers are the daemon's).
///
/// Each event has a level, a human-readable message, an event name (`unlock_failed`,
/// metadata key `event`), an optional error (metadata key `error`, the only key for
/// errors) and dotted metadata (`peer.uid`, `widget.id`). What a connection or a call is
/// about is set once on a copy (``with(_:_:)``): the server's logger for a connection
/// carries `peer.uid`, `peer.pid` and `connection.id`, and every call's
/// ``CallContext/logger`` starts from it.
///
/// Never pass secrets to a logger: no passcodes, key bytes, timeline content or field
/// values, in the message, the error or metadata. Log identifiers (widget ids, uids)
/// and outcomes only; logs outlive the daemon and are readable by administrators.
extension Logger {
    /// The metadata key of an event's name.
    package static let eventKey = "event"
    /// The metadata key of an event's error, written from swift-log's `error:` argument.
    package static let errorKey = "error"

    /// A logger that drops every event, for contexts nobody listens to.
    package static let disabled = Logger(label: "widgetd", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A copy with `key` set to `value` in its metadata, e.g. for one connection or widget.
    package func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy[metadataKey: key] = .string(value)
        return copy
    }

    /// Records an event if `level` is enabled; otherwise neither the message nor the
    /// metadata is built (both are autoclosures). Never pass secrets (see the
    /// extension's documentation).
    package func log(
        _ level: Level, _ message: @autoclosure () -> String, event: String, error: (any Error)? = nil,
        metadata: @autoclosure () -> [String: String] = [:], file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard level >= logLevel else { return }
        var fields: Metadata = [Self.eventKey: .string(event)]
        for (key, value) in metadata() { fields[key] = .string(value) }
        log(
            level: level, Message(stringLiteral: message()), error: error, metadata: fields, source: "widgetd",
            file: file, function: function, line: line)
    }

    /// Records a debug event. Never pass secrets.
    package func debug(
        _ message: @autoclosure () -> String, event: String, error: (any Error)? = nil, metadata: @autoclosure () -> [String: String] = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        log(.debug, message(), event: event, error: error, metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records an informational event. Never pass secrets.
    package func info(
        _ message: @autoclosure () -> String, event: String, error: (any Error)? = nil, metadata: @autoclosure () -> [String: String] = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        log(.info, message(), event: event, error: error, metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records a normal but significant event (an unlock, a configuration reload). Never pass secrets.
    package func notice(
        _ message: @autoclosure () -> String, event: String, error: (any Error)? = nil, metadata: @autoclosure () -> [String: String] = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        log(.notice, message(), event: event, error: error, metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records a warning. Never pass secrets.
    package func warning(
        _ message: @autoclosure () -> String, event: String, error: (any Error)? = nil, metadata: @autoclosure () -> [String: String] = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        log(.warning, message(), event: event, error: error, metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records an error. Never pass secrets.
    package func error(
        _ message: @autoclosure () -> String, event: String, error: (any Error)? = nil, metadata: @autoclosure () -> [String: String] = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        log(.error, message(), event: event, error: error, metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records a critical event. Never pass secrets.
    package func critical(
        _ message: @autoclosure () -> String, event: String, error: (any Error)? = nil, metadata: @autoclosure () -> [String: String] = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        log(.critical, message(), event: event, error: error, metadata: metadata(), file: file, function: function, line: line)
    }

}
