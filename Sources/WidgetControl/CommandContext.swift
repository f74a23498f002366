import FoundationEssentials
import Varlink
import WidgetdClient
import WidgetdWire
import WidgetModel

/// What a running command reaches the world through: streams, the daemon, output style.
///
/// Built once per `run`; tests build it with in-memory streams.
final class CommandContext {
    /// Standard output: results.
    let standardOutput: any TextSink
    /// Standard error: errors and prompts.
    let standardError: any TextSink
    /// Standard input: passcodes with `--passcode-stdin`, timelines given as `-`.
    let standardInput: any InputSource
    /// Whether results are printed as JSON.
    let json: Bool
    /// Whether output may use ANSI colour (a terminal, and no `NO_COLOR`).
    let color: Bool
    /// The daemon's socket.
    let socketPath: String
    /// Whether standard output is a terminal that understands cursor movement (`watch` redraws).
    let redraws: Bool
    /// The time events are stamped with when they arrive (`monitor`, `watch`).
    let clock: () -> Date
    /// The width previews are drawn to (`nil`: no limit).
    let columns: Int?
    /// The local zone's offset from UTC at a date, in seconds: dates shown to a person
    /// are local (``LocalTime``).
    let utcOffset: (Date) -> Int

    init(
        standardOutput: any TextSink, standardError: any TextSink, standardInput: any InputSource,
        json: Bool, color: Bool, socketPath: String, redraws: Bool = false, clock: @escaping () -> Date = Date.init,
        columns: Int? = nil, utcOffset: @escaping (Date) -> Int = LocalTime.offset(at:)
    ) {
        self.columns = columns
        self.utcOffset = utcOffset
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardInput = standardInput
        self.json = json
        self.color = color
        self.socketPath = socketPath
        self.redraws = redraws
        self.clock = clock
    }

    /// Opens a connection to the daemon (the client library's socket: `widgetctl` makes
    /// one call or follows one stream per process, so blocking I/O is enough).
    func connect() throws(CommandFailure) -> ClientSocket {
        do { return try ClientSocket(path: socketPath) } catch { throw DaemonErrorMessage.failure(for: error, socketPath: socketPath) }
    }

    /// Calls `method` once on a new connection.
    func call(_ method: WidgetdMethod, _ parameters: [String: JSONValue] = [:]) throws(CommandFailure) -> VarlinkReplyMessage {
        try call(on: try connect(), method, parameters)
    }

    /// Calls `method` once on a new connection, with members given as JSON text.
    func call(
        _ method: WidgetdMethod, _ parameters: [String: JSONValue], texts: [String: [UInt8]]
    ) throws(CommandFailure) -> VarlinkReplyMessage {
        let socket = try connect()
        return try exchange { () throws(WidgetdError) in
            try socket.call(WireCoding.call(method.fullName, values: parameters, texts: texts))
        }
    }

    /// Calls a method named in full (`org.varlink.service.GetInfo`) once on a new connection.
    func call(method: String, _ parameters: [String: JSONValue] = [:]) throws(CommandFailure) -> VarlinkReplyMessage {
        let socket = try connect()
        return try exchange { () throws(WidgetdError) in try socket.call(WireCoding.call(method, values: parameters)) }
    }

    /// Calls a method named in full with parameters as the user wrote them (`call`): every
    /// object's members in their order, numbers as their text.
    func call(method: String, ordered parameters: OrderedJSON) throws(CommandFailure) -> VarlinkReplyMessage {
        let socket = try connect()
        let request = VarlinkCallMessage.encode(method: method, encodedParameters: Array(parameters.text.utf8), more: false)
        return try exchange { () throws(WidgetdError) in try socket.call(request) }
    }

    /// Calls `method` on an open connection: commands that make several calls use one.
    func call(
        on socket: ClientSocket, _ method: WidgetdMethod, _ parameters: [String: JSONValue] = [:]
    ) throws(CommandFailure) -> VarlinkReplyMessage {
        try exchange { () throws(WidgetdError) in try socket.call(WireCoding.call(method.fullName, values: parameters)) }
    }

    /// Calls `method` on `socket` with secret parameters, assembled in zeroed memory
    /// (``SecretCall``); the secrets are zeroed when their buffers are released.
    ///
    /// Commands connect before prompting, so nobody types a passcode for a daemon that is not there.
    func call(
        on socket: ClientSocket, _ method: WidgetdMethod, secrets: [(name: String, value: ZeroingBuffer?)]
    ) throws(CommandFailure) -> VarlinkReplyMessage {
        try exchange { () throws(WidgetdError) in try socket.call(SecretCall.encode(method.fullName, secrets)) }
    }

    /// Runs one request and reply; a failure on the way, or an error reply, becomes the
    /// failure a person reads.
    private func exchange(_ body: () throws(WidgetdError) -> VarlinkReplyMessage) throws(CommandFailure) -> VarlinkReplyMessage {
        let reply: VarlinkReplyMessage
        do { reply = try body() } catch { throw DaemonErrorMessage.failure(for: error, socketPath: socketPath) }
        return try checked(reply)
    }

    /// The reply, or the failure its error stands for.
    private func checked(_ reply: VarlinkReplyMessage) throws(CommandFailure) -> VarlinkReplyMessage {
        if let name = reply.error {
            throw DaemonErrorMessage.failure(forErrorReply: name, parameters: reply.parameters, socketPath: socketPath)
        }
        return reply
    }

    /// Follows a `more` call, handing each reply to `body` until the daemon ends the stream.
    func stream(
        _ method: WidgetdMethod, _ parameters: [String: JSONValue],
        _ body: (VarlinkReplyMessage) throws(CommandFailure) -> Void
    ) throws(CommandFailure) {
        try stream(method: method.fullName, parameters, body)
    }

    /// Follows a `more` call of a method named in full, as ``stream(_:_:_:)`` does.
    func stream(
        method: String, _ parameters: [String: JSONValue],
        _ body: (VarlinkReplyMessage) throws(CommandFailure) -> Void
    ) throws(CommandFailure) {
        try stream(request: WireCoding.call(method, values: parameters, more: true), body)
    }

    /// Follows a `more` call of a method named in full, its parameters as the user wrote them.
    func stream(
        method: String, ordered parameters: OrderedJSON, _ body: (VarlinkReplyMessage) throws(CommandFailure) -> Void
    ) throws(CommandFailure) {
        try stream(
            request: VarlinkCallMessage.encode(method: method, encodedParameters: Array(parameters.text.utf8), more: true), body)
    }

    /// Follows the `more` call `request` until its stream ends.
    private func stream(request: [UInt8], _ body: (VarlinkReplyMessage) throws(CommandFailure) -> Void) throws(CommandFailure) {
        let socket = try connect()
        var failure: CommandFailure?
        do {
            try socket.follow(request) { reply in
                do throws(CommandFailure) { try body(try checked(reply)) } catch { failure = error; return false }
                return true
            }
        } catch {
            throw DaemonErrorMessage.failure(for: error, socketPath: socketPath)
        }
        if let failure { throw failure }
    }

    /// Decodes a reply into a wire type, as a failure a person can read.
    func decode<T: Decodable>(_ type: T.Type, from reply: VarlinkReplyMessage) throws(CommandFailure) -> T {
        do { return try reply.decode(type) } catch { throw DaemonErrorMessage.failure(for: error, socketPath: socketPath) }
    }

    /// Prints a reply's parameters as one line of JSON, for scripts: members in the order
    /// the daemon sent them (a presentation's fields in the provider's order), numbers as
    /// their text, dates as sent (RFC 3339 in UTC).
    func printJSON(_ reply: VarlinkReplyMessage) {
        standardOutput.write(reply.orderedParameters.text + "\n")
    }

    /// Prints parameters as one line of JSON (sorted keys), for scripts.
    func printJSON(_ parameters: [String: JSONValue]) {
        printJSON(.object(parameters))
    }

    /// Prints a value as one line of JSON (sorted keys).
    func printJSON(_ value: JSONValue) {
        standardOutput.write(JSONText.compact(value) + "\n")
    }

    /// Now, as RFC 3339 in UTC to the second (`2026-12-01T09:16:38Z`): the stamp of a
    /// streamed event. Events within one second keep their order by line.
    func timestamp() -> String { RFC3339.format(Date(timeIntervalSince1970: clock().timeIntervalSince1970.rounded(.down))) }

    /// Now, to the second, in the local time zone: the stamp of a streamed event's line
    /// for a person (`--json` keeps ``timestamp()``, in UTC).
    func localTimestamp() -> String { localDate(Date(timeIntervalSince1970: clock().timeIntervalSince1970.rounded(.down))) }

    /// Prints a reply's parameters as sent, with one member more at the end (a stamp).
    func printJSON(_ reply: VarlinkReplyMessage, adding name: String, _ value: String) {
        guard case .object(let members) = reply.orderedParameters else { return printJSON(reply) }
        standardOutput.write(OrderedJSON.object(members + [.init(name: name, value: .string(value))]).text + "\n")
    }

    /// The preview renderer for this output: colour as it allows, its width, dates
    /// against the clock in the local zone.
    var renderer: PreviewRenderer { PreviewRenderer(color: color, columns: columns, now: clock(), utcOffset: utcOffset) }

    /// A date for a person: in the local time zone.
    func localDate(_ date: Date) -> String { LocalTime.format(date, offset: utcOffset(date)) }

    /// Prints a line for a person.
    func print(_ line: String = "") {
        standardOutput.write(line + "\n")
    }
}
