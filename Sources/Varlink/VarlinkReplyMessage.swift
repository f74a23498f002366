import StrictJSON

/// A Varlink reply as a client receives it: an error name or none, whether more replies
/// follow, and the `parameters` object left as received bytes.
///
/// The parameters can hold decrypted content; they live in a buffer that is zeroed when
/// the last copy of the reply is released, and are handed to the client's own decoder in
/// place (``withParameterBytes(_:)``).
public struct VarlinkReplyMessage: Sendable {
    /// The fully qualified error name, e.g. `io.widgetd.WrongPasscode`, or `nil` for a
    /// successful reply.
    public let error: String?
    /// True while a `more` call has further replies to come.
    public let continues: Bool

    private let message: WipingBuffer
    /// Where the `parameters` object lies in ``message``, or nil when absent or null.
    private let parametersRange: Range<Int>?

    /// Decodes one message (without its NUL); the array's storage is zeroed.
    ///
    /// Throws ``VarlinkReplyDecodingError`` when the bytes are not a JSON object or a
    /// member has the wrong type: the peer is not speaking Varlink.
    public init(decoding bytes: [UInt8]) throws(VarlinkReplyDecodingError) {
        let message = WipingBuffer(bytes)
        let scanned: Result<ReplyScan, VarlinkReplyDecodingError> = message.withBytes { buffer in
            Result { () throws(VarlinkReplyDecodingError) in try ReplyScan(buffer) }
        }
        let scan = try scanned.get()
        self.error = scan.error
        self.continues = scan.continues
        self.parametersRange = scan.parameters
        self.message = message
    }

    /// Runs `body` with the `parameters` object's bytes in place, `{}` when the reply has
    /// none. The view must not escape `body`.
    public func withParameterBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        guard let parametersRange else {
            let empty: [UInt8] = [UInt8(ascii: "{"), UInt8(ascii: "}")]
            let result: Result<R, E> = empty.withUnsafeBytes { buffer in Result { () throws(E) in try body(buffer) } }
            return try result.get()
        }
        let result: Result<R, E> = message.withBytes { buffer in
            Result { () throws(E) in try body(UnsafeRawBufferPointer(rebasing: buffer[parametersRange])) }
        }
        return try result.get()
    }
}

/// Why a message is not a Varlink reply.
public enum VarlinkReplyDecodingError: Error, Sendable, Equatable {
    /// The message is not JSON text, or not a JSON object.
    case notAJSONObject
    /// A member the protocol defines has the wrong type (`error`, `continues`, `parameters`).
    case invalidMember(String)
}

/// One pass over a reply: its `error` and `continues` members, and where `parameters` lies.
/// Unknown members are checked as JSON and ignored, as Varlink allows.
private struct ReplyScan {
    var error: String?
    var continues = false
    var parameters: Range<Int>?
    /// The first defined member found with the wrong type.
    var invalid: String?

    init(_ bytes: UnsafeRawBufferPointer) throws(VarlinkReplyDecodingError) {
        var scan = ReplyScan(error: nil)
        do {
            var reader = JSONReader(bytes)
            guard try reader.peek() == .object else { throw VarlinkReplyDecodingError.notAJSONObject }
            try reader.readObject { (reader, key) throws(JSONReadError) in
                let kind = try reader.peek()
                let start = reader.offset
                switch (key, kind) {
                case ("error", .string): scan.error = try reader.readString()
                case ("continues", .bool): scan.continues = try reader.readBool()
                case ("parameters", .object):
                    try reader.skipValue()
                    scan.parameters = start..<reader.offset
                case ("error", _), ("continues", _), ("parameters", _):
                    if kind != .null, scan.invalid == nil { scan.invalid = key }
                    try reader.skipValue()
                default: try reader.skipValue()
                }
            }
            try reader.expectEnd()
        } catch {
            throw .notAJSONObject
        }
        if let invalid = scan.invalid { throw .invalidMember(invalid) }
        self = scan
    }

    private init(error: String?) { self.error = error }
}
