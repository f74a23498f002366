import FoundationEssentials
import Glibc
import Varlink
import WidgetModel
import WidgetdPOSIX
import WidgetdWire

/// A small blocking Varlink client over a Unix stream socket.
///
/// Messages are framed and their envelopes read by the Varlink module; `widgetctl` makes
/// one call or follows one stream per process, so blocking I/O is enough. Parameters go
/// through the strict reader and writer, which keep numbers exactly as their text.
/// An instance is used from one thread at a time; it closes its socket on release.
public final class VarlinkClient {
    /// The largest reply accepted, so a confused peer cannot exhaust memory.
    static let maximumReplyBytes = 16 << 20

    private let fileDescriptor: Int32
    /// Bytes received after the last complete message (a stream's next reply).
    private let framer = MessageFramer(maxMessageBytes: maximumReplyBytes)

    /// Connects to the Unix socket at `path`.
    ///
    /// The corresponding C functions are `socket` and `connect`.
    public init(path: String) throws(VarlinkClientError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity, !pathBytes.contains(0) else {
            throw .invalidPath(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .io(errorNumber: .current) }
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while result != 0 && errno == EINTR
        if result != 0 {
            let error = errno
            close(fd)
            switch error {
            case EACCES, EPERM: throw .accessDenied(path: path)
            default: throw .unreachable(path: path, errorNumber: Errno(rawValue: error))
            }
        }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Calls `method` and returns its single reply, or throws the daemon's error.
    public func call(_ method: WidgetdMethod, _ parameters: [String: JSONValue] = [:]) throws(VarlinkClientError) -> VarlinkReplyMessage {
        try call(method: method.fullName, parameters)
    }

    /// Calls a method by its full name (`org.varlink.service.GetInfo`, or any a daemon
    /// may serve) and returns its single reply, or throws the daemon's error.
    public func call(method: String, _ parameters: [String: JSONValue] = [:]) throws(VarlinkClientError) -> VarlinkReplyMessage {
        try send(Self.encodeRequest(method: method, parameters: parameters, more: false))
        return try receive()
    }

    /// Calls `method` with `more`, handing each reply to `body` until one does not continue.
    ///
    /// `body` returns false to stop following early.
    public func stream(
        _ method: WidgetdMethod, _ parameters: [String: JSONValue] = [:],
        _ body: (VarlinkReplyMessage) throws(VarlinkClientError) -> Bool
    ) throws(VarlinkClientError) {
        try stream(method: method.fullName, parameters, body)
    }

    /// Calls a method by its full name with `more`, handing each reply to `body` until
    /// one does not continue (or `body` returns false).
    public func stream(
        method: String, _ parameters: [String: JSONValue] = [:],
        _ body: (VarlinkReplyMessage) throws(VarlinkClientError) -> Bool
    ) throws(VarlinkClientError) {
        try send(Self.encodeRequest(method: method, parameters: parameters, more: true))
        while true {
            let reply = try receive()
            guard try body(reply), reply.continues else { return }
        }
    }

    /// Calls `method` with secret string parameters that never become a `String`.
    ///
    /// The request is assembled in a `SecretBuffer` (zeroed when released); a `nil`
    /// secret leaves its parameter out.
    func call(
        _ method: WidgetdMethod, _ parameters: [String: JSONValue] = [:], secrets: [(name: String, value: SecretBuffer?)]
    ) throws(VarlinkClientError) -> VarlinkReplyMessage {
        let request = Self.encodeSecretRequest(method: method.fullName, parameters: parameters, secrets: secrets)
        try request.withUnsafeBytes { (bytes) throws(VarlinkClientError) in try send(bytes) }
        return try receive()
    }

    // MARK: Encoding

    /// Compact JSON, keys sorted, numbers exactly as their text (`JSONWriter`): a
    /// field value from a timeline file reaches the daemon digit for digit.
    private static func encode(_ value: JSONValue) -> [UInt8] {
        value.jsonBytes
    }

    /// The NUL-terminated bytes of a request.
    static func encodeRequest(method: String, parameters: [String: JSONValue], more: Bool) -> [UInt8] {
        VarlinkCallMessage.encode(method: method, encodedParameters: encode(.object(parameters)), more: more)
    }

    /// Calls `method` with `parameters` and with members already written as JSON text
    /// (`texts`, sent byte for byte: a timeline file's `fields` keep their order).
    func call(
        _ method: WidgetdMethod, _ parameters: [String: JSONValue], texts: [String: [UInt8]]
    ) throws(VarlinkClientError) -> VarlinkReplyMessage {
        var body: [UInt8] = [UInt8(ascii: "{")]
        var members = parameters.mapValues(Self.encode)
        members.merge(texts) { _, text in text }
        for (index, name) in members.keys.sorted().enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += Self.encode(.string(name)) + [UInt8(ascii: ":")] + members[name]!
        }
        body.append(UInt8(ascii: "}"))
        try send(VarlinkCallMessage.encode(method: method.fullName, encodedParameters: body, more: false))
        return try receive()
    }

    /// The NUL-terminated bytes of a request whose secret parameters are spliced in as JSON strings.
    static func encodeSecretRequest(
        method: String, parameters: [String: JSONValue], secrets: [(name: String, value: SecretBuffer?)]
    ) -> SecretBuffer {
        var head = VarlinkCallMessage.head(method: method) + [UInt8(ascii: "{")]
        var members: [[UInt8]] = parameters.keys.sorted().map { encode(.string($0)) + [UInt8(ascii: ":")] + encode(parameters[$0]!) }
        let present = secrets.filter { $0.value != nil }
        members += present.map { encode(.string($0.name)) + Array(":\"".utf8) }
        // Worst case a secret byte becomes `\u00XX`: six bytes.
        let secretBytes = present.reduce(0) { $0 + $1.value!.count * 6 + 1 }
        let buffer = SecretBuffer(capacity: head.count + members.reduce(0) { $0 + $1.count + 1 } + secretBytes + 1 + VarlinkCallMessage.tail.count)
        buffer.append(contentsOf: head)
        head = []
        let publicCount = parameters.count
        for (index, member) in members.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(contentsOf: member)
            if index >= publicCount {
                present[index - publicCount].value!.withUnsafeBytes { appendEscaped($0, to: buffer) }
                buffer.append(UInt8(ascii: "\""))
            }
        }
        buffer.append(UInt8(ascii: "}"))
        buffer.append(contentsOf: VarlinkCallMessage.tail)
        return buffer
    }

    /// Appends `bytes` as the inside of a JSON string.
    private static func appendEscaped(_ bytes: UnsafeRawBufferPointer, to buffer: SecretBuffer) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            case 0..<0x20:
                buffer.append(contentsOf: Array("\\u00".utf8))
                buffer.append(hex[Int(byte >> 4)])
                buffer.append(hex[Int(byte & 0xF)])
            default:
                buffer.append(byte)
            }
        }
    }

    // MARK: I/O

    private func send(_ bytes: [UInt8]) throws(VarlinkClientError) {
        // Array's accessor rethrows untyped errors; the typed error travels as a Result.
        let result = bytes.withUnsafeBytes { raw -> Result<Void, VarlinkClientError> in
            do throws(VarlinkClientError) { try send(raw); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Writes every byte; `MSG_NOSIGNAL` turns a vanished daemon into an error, not SIGPIPE.
    private func send(_ bytes: UnsafeRawBufferPointer) throws(VarlinkClientError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.send(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .connectionClosed }
                throw .io(errorNumber: .current)
            }
            offset += n
        }
    }

    /// Reads one message and interprets it as a reply.
    private func receive() throws(VarlinkClientError) -> VarlinkReplyMessage {
        var chunk = [UInt8](repeating: 0, count: 65536)
        // The chunk may hold timeline content: zero it when done.
        defer { chunk.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        while true {
            let message: [UInt8]?
            do { message = try framer.nextMessage() } catch {
                throw .malformedReply("reply larger than \(Self.maximumReplyBytes) bytes")
            }
            if let message { return try Self.decodeReply(message) }
            let n = chunk.withUnsafeMutableBytes { recv(fileDescriptor, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { throw .connectionClosed }
                throw .io(errorNumber: .current)
            }
            if n == 0 { throw .connectionClosed }
            chunk.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    /// Turns a message into a reply, or into the error it carries.
    static func decodeReply(_ message: [UInt8]) throws(VarlinkClientError) -> VarlinkReplyMessage {
        let reply: VarlinkReplyMessage
        do { reply = try VarlinkReplyMessage(decoding: message) } catch {
            switch error {
            case .notAJSONObject: throw .malformedReply("reply is not a JSON object")
            case .invalidMember(let name): throw .malformedReply("reply \(name) has the wrong type")
            }
        }
        if let name = reply.error { throw .remote(name: name, parameters: reply.parameters) }
        return reply
    }
}
