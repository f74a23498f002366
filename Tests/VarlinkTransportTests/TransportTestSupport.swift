import Logging
import Synchronization
import Varlink
import VarlinkTransport
import WidgetdWire

/// A log handler that keeps events in memory (the daemon's own handlers live above the
/// transport): each record with its event name and the metadata of its logger and event.
struct InMemoryLogHandler: LogHandler {
    struct Record: Sendable {
        var level: Logger.Level
        var event: String?
        var metadata: [String: String]
    }

    private final class Storage: Sendable {
        let records = Mutex<[Record]>([])
    }

    private let storage = Storage()
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata { fields[key] = value.description }
        for (key, value) in event.metadata ?? [:] { fields[key] = value.description }
        let name = fields.removeValue(forKey: Logger.eventKey)
        storage.records.withLock { $0.append(Record(level: event.level, event: name, metadata: fields)) }
    }

    /// The events with the given event name.
    func records(event: String) -> [Record] {
        storage.records.withLock { $0 }.filter { $0.event == event }
    }
}

extension Logger {
    /// A logger sending events at `level` or above to `handler`.
    init(handler: some LogHandler, level: Level = .info) {
        self.init(label: "widgetd", factory: { _ in handler })
        logLevel = level
    }
}

/// The tests' stand-in for a service's reply protection: the class a reply holds.
struct TestTag: OutputTag, Equatable {
    var protectionClass: String
    var logMetadata: [String: String] { ["class": protectionClass] }
}

extension CallContext {
    /// The final reply carrying `parameters`, encoded by the protocol module (the daemon
    /// encodes its own replies; for these tests' parameters the bytes are the same).
    func reply(_ parameters: some Encodable, protecting protection: TestTag? = nil) {
        send(isFinal: true, protecting: protection) { VarlinkReply.encode(parameters: parameters) }
    }

    /// A reply with `continues: true`, or the final one without `more`.
    func stream(_ parameters: some Encodable) {
        send(isFinal: !wantsMore) { VarlinkReply.encode(parameters: parameters, continues: wantsMore) }
    }
}

extension ServiceDescription {
    /// widgetd's own description, as the daemon passes it.
    static let widgetd = ServiceDescription(
        info: .widgetd, interfaces: InterfaceDefinition.all, tooLargeErrorName: WidgetdErrorName.tooLarge.rawValue,
        encode: { VarlinkReply.encode(parameters: $0) })
}
