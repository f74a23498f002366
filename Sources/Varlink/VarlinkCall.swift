import FoundationEssentials
import StrictJSON

/// A decoded Varlink method call.
///
/// The envelope (method name and flags) is decoded at once; the parameters stay in the
/// received bytes until a handler asks for them with the type it expects, so a call is
/// decoded once into exactly that type. The bytes can hold a passcode: they live in a
/// buffer that is zeroed when the last copy of the call is released.
public struct VarlinkCall: Sendable {
    /// The fully qualified method name, e.g. `io.widgetd.Host.GetPresentation`.
    public let method: String
    /// The interface part of ``method``, e.g. `io.widgetd.Host`.
    public let interface: String
    /// The member part of ``method``, e.g. `GetPresentation`.
    public let member: String
    /// The caller accepts several replies (a stream), each but the last with `continues`.
    public let more: Bool
    /// The caller wants no reply at all.
    public let oneway: Bool
    /// The caller asks to switch the connection to another protocol after the reply.
    public let upgrade: Bool

    /// The received message, NUL excluded.
    private let message: WipingBuffer

    /// Where the `parameters` object lies in ``message``, or nil when absent or null.
    private let parametersRange: Range<Int>?

    /// Whether the parameters' bytes are known to be JSON text. A call decoded with
    /// ``init(decodingDeferringParameters:)`` has them located only, until
    /// ``checkParameters()`` or ``readParameters(_:)`` checks them.
    public private(set) var parametersAreChecked: Bool

    /// What ``readParameters(_:)``'s walk made of the parameters, for the handler to
    /// take instead of reading them again; nil when they were not walked so. In a box
    /// that describes itself by its type alone: the value can hold content, and a call
    /// printed (a log line, a test's failure) must not show it.
    private var walked: WalkedParameters?

    /// Decodes a call from one message (without its NUL).
    ///
    /// The message is checked as JSON text (valid UTF-8, paired surrogates, bounded
    /// nesting) and `parameters` located as a byte range, so that a handler can decode
    /// them in place without parsing the envelope again.
    ///
    /// Throws ``VarlinkCallDecodingError/notAJSONObject`` when the bytes are not a JSON
    /// object (the connection cannot be trusted any more), and
    /// ``VarlinkCallDecodingError/invalidCall(_:)`` for an object that is not a valid call,
    /// carrying the error to answer with.
    public init(decoding bytes: [UInt8]) throws(VarlinkCallDecodingError) {
        try self.init(message: WipingBuffer(bytes))
        try checkParameters()
    }

    /// Decodes a call from one message (without its NUL) viewed in place, copying it
    /// once into the call's own wiping buffer. Throws as the array's initialiser does.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(VarlinkCallDecodingError) {
        try self.init(message: WipingBuffer(copying: bytes))
        try checkParameters()
    }

    /// Decodes a call's envelope from one message (without its NUL) viewed in place,
    /// copying it once into the call's own wiping buffer, and only locates a
    /// `parameters` object, leaving its bytes unchecked (``parametersAreChecked`` false)
    /// for the walk that decodes them: the event loop's path, where a message is then
    /// walked once. The caller must then call ``readParameters(_:)`` or
    /// ``checkParameters()`` before anything else; until then the call is not known to
    /// be one (its message may not be JSON).
    ///
    /// Throws as ``init(decoding:)-(UnsafeRawBufferPointer)`` does, on the same
    /// messages: an envelope found invalid has its parameters checked first, so that a
    /// message that is not JSON fails as such wherever its fault lies.
    public init(decodingDeferringParameters bytes: UnsafeRawBufferPointer) throws(VarlinkCallDecodingError) {
        try self.init(message: WipingBuffer(copying: bytes))
    }

    /// Decodes as ``init(decodingDeferringParameters:)`` does, taking `message` (from
    /// `UnsafeMutableRawBufferPointer.allocate`, the caller's own copy of a message) as
    /// the call's buffer instead of copying it once more: it is zeroed and deallocated
    /// when the last copy of the call is released, or at once when this throws. The
    /// caller must not use it afterwards.
    public init(adoptingDeferringParameters message: UnsafeMutableRawBufferPointer) throws(VarlinkCallDecodingError) {
        try self.init(message: WipingBuffer(adopting: message))
    }

    private init(message: WipingBuffer) throws(VarlinkCallDecodingError) {
        let scanned: Result<EnvelopeScan, JSONReadError> = message.withBytes { buffer in
            Result { () throws(JSONReadError) in try EnvelopeScan(buffer) }
        }
        guard case .success(let envelope) = scanned else { throw .notAJSONObject }
        // The members are judged in this order, whatever order they came in, and only
        // once the whole message is known to be JSON.
        func checkedInvalid(_ member: String) -> VarlinkCallDecodingError {
            guard let unchecked = envelope.uncheckedParameters else { return .invalidCall(.invalidParameter(member)) }
            let checked: Result<Void, JSONReadError> = message.withBytes { buffer in
                Result { () throws(JSONReadError) in try EnvelopeScan.check(UnsafeRawBufferPointer(rebasing: buffer[unchecked])) }
            }
            guard case .success = checked else { return .notAJSONObject }
            return .invalidCall(.invalidParameter(member))
        }
        if let key = envelope.invalid.first { throw checkedInvalid(key.name) }
        guard let method = envelope.method, let dot = method.lastIndex(of: "."),
              dot != method.startIndex,
              method.index(after: dot) != method.endIndex
        else { throw checkedInvalid("method") }
        self.message = message
        self.parametersRange = envelope.parameters
        self.parametersAreChecked = envelope.uncheckedParameters == nil
        self.walked = nil
        self.method = method
        self.interface = String(method[..<dot])
        self.member = String(method[method.index(after: dot)...])
        self.more = envelope.more ?? false
        self.oneway = envelope.oneway ?? false
        self.upgrade = envelope.upgrade ?? false
    }

    /// Checks the parameters' bytes as JSON text (nested one level in the message, as
    /// a walk of the whole message would count it), unless already checked. Throws
    /// ``VarlinkCallDecodingError/notAJSONObject`` when they are not: the message is then
    /// not JSON, and the connection is closed as for any such message.
    public mutating func checkParameters() throws(VarlinkCallDecodingError) {
        guard !parametersAreChecked, let parametersRange else { return }
        let checked: Result<Void, JSONReadError> = message.withBytes { buffer in
            Result { () throws(JSONReadError) in try EnvelopeScan.check(UnsafeRawBufferPointer(rebasing: buffer[parametersRange])) }
        }
        guard case .success = checked else { throw .notAJSONObject }
        parametersAreChecked = true
    }

    /// Reads the parameters with `walk` in the same pass that checks them as JSON text,
    /// and keeps what it returns (``walkedParameters(as:)``): one walk of the message for a
    /// handler that decodes its parameters anyway.
    ///
    /// `walk` gets a reader standing on the `parameters` object, which checks everything
    /// it reads or skips (UTF-8, escapes, numbers, nesting counted from the message's
    /// top), or nil when the call has none. It throws only when the bytes are not JSON
    /// text (``JSONReadError/Kind/syntax``); a value it does not accept goes into what it
    /// returns, after it has skipped that value with the reader, so that the rest is
    /// still checked. A walk that stops before the object's end is completed by
    /// ``checkParameters()``. Throws ``VarlinkCallDecodingError/notAJSONObject`` when
    /// the parameters are not JSON text. On parameters checked already, `walk` gets a
    /// reader that does not check UTF-8 again.
    public mutating func readParameters<P: Sendable>(
        _ walk: (inout JSONReader?) throws(JSONReadError) -> P
    ) throws(VarlinkCallDecodingError) {
        let range = parametersRange
        let checked = parametersAreChecked
        let outcome: Result<(value: P, toTheEnd: Bool), JSONReadError> = message.withBytes { buffer in
            Result { () throws(JSONReadError) in
                guard let range else {
                    var none: JSONReader? = nil
                    return (try walk(&none), true)
                }
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[range])
                var reader: JSONReader? = checked ? JSONReader(validated: bytes) : JSONReader(bytes, depth: 1)
                let value = try walk(&reader)
                return (value, reader?.offset == bytes.count)
            }
        }
        guard case .success(let result) = outcome else { throw .notAJSONObject }
        if !result.toTheEnd { try checkParameters() }
        parametersAreChecked = true
        walked = WalkedParameters(result.value)
    }

    /// The value ``readParameters(_:)`` kept, if it is a `P`.
    public func walkedParameters<P>(as type: P.Type) -> P? {
        walked?.value as? P
    }

    /// Runs `body` with the `parameters` object's bytes, in place, or nil when the call
    /// has none (absent or null). The view must not escape `body`.
    public func withParameterBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer?) throws(E) -> R) throws(E) -> R {
        precondition(parametersAreChecked, "parameters read before they were checked as JSON")
        guard let parametersRange else { return try body(nil) }
        let result: Result<R, E> = message.withBytes { buffer in
            Result { () throws(E) in try body(UnsafeRawBufferPointer(rebasing: buffer[parametersRange])) }
        }
        return try result.get()
    }

    /// Decodes the call's parameters as `P`; absent parameters decode as `{}`.
    ///
    /// A missing key, a value of the wrong type or a value `P` rejects throws
    /// `org.varlink.service.InvalidParameter` naming the parameter's path, such as
    /// `widget` or `entries[0].date`.
    public func parameters<P: Decodable>(_ type: P.Type) throws(VarlinkError) -> P {
        do {
            return try decodeParameters(type)
        } catch let error as DecodingError {
            throw .invalidParameter(Self.parameterPath(of: error))
        } catch {
            throw .invalidParameter("")
        }
    }

    /// Runs `body` with the received message's bytes (NUL excluded), in place, so that a
    /// handler can recognise the same request when it comes again. The view must not
    /// escape `body`.
    public func withMessageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try message.withBytes(body)
    }

    /// Decodes the parameters as `P`, rethrowing the decoder's own error, for a caller
    /// that describes it in its own typed error (a timeline's validation reason). The
    /// coding path of the error starts with the `parameters` key.
    public func decodeParameters<P: Decodable>(_ type: P.Type) throws -> P {
        precondition(parametersAreChecked, "parameters read before they were checked as JSON")
        guard let parametersRange else {
            return try VarlinkJSON.makeDecoder().decode(P.self, from: Data("{}".utf8))
        }
        return try message.withData { data in
            try VarlinkJSON.makeDecoder().decode(P.self, from: data[parametersRange])
        }
    }

    /// The dotted path of the parameter a decoding error is about, without the
    /// leading `parameters` key.
    public static func parameterPath(of error: DecodingError) -> String {
        var keys: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let context): keys = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            keys = context.codingPath
        @unknown default: keys = []
        }
        if keys.first?.stringValue == "parameters" {
            keys.removeFirst()
        }
        var path = ""
        for key in keys {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return path
    }
}

/// The value a walk of a call's parameters made (see `VarlinkCall.readParameters`).
private final class WalkedParameters: Sendable {
    let value: any Sendable

    init(_ value: any Sendable) { self.value = value }
}

/// Why a message is not a call.
public enum VarlinkCallDecodingError: Error, Sendable, Equatable {
    /// The message is not JSON, or not a JSON object: close the connection.
    case notAJSONObject
    /// A JSON object that is not a valid call: answer with this error.
    case invalidCall(VarlinkError)
}

/// One pass over a message: the envelope's members, and where `parameters` lies.
///
/// Every byte is checked except a `parameters` object's, which is only skipped to its
/// end: the call checks those with ``VarlinkCall/checkParameters()`` or in the walk
/// that decodes them (``VarlinkCall/readParameters(_:)``), so that a message is walked
/// once. The message is JSON text iff the scan succeeds and those bytes are.
///
/// A member of the wrong type is remembered rather than thrown at once, so that a
/// syntax error later in the message still wins (the connection is then closed) and
/// the members are judged in a fixed order. Unknown members are checked as JSON and
/// ignored; a known member given twice is invalid.
private struct EnvelopeScan {
    var method: String?
    var more: Bool?
    var oneway: Bool?
    var upgrade: Bool?
    var parameters: Range<Int>?
    /// The `parameters` object whose bytes were only skipped, not checked.
    var uncheckedParameters: Range<Int>?
    /// The members found invalid; bits, not a `Set<String>`: every call paid the set's
    /// allocation and hashing on the loop.
    var invalid = EnvelopeMembers()

    init(_ bytes: UnsafeRawBufferPointer) throws(JSONReadError) {
        var reader = JSONReader(bytes)
        guard try reader.peek() == .object else { throw JSONReadError(.syntax, at: 0, "not an object") }
        var seen = EnvelopeMembers()
        var scan = self
        try reader.readObject { (reader, name) throws(JSONReadError) in
            guard let key = EnvelopeMember(name) else { return try reader.skipValue() }
            if seen.contains(key) {
                scan.invalid.insert(key)
                // A second `parameters`: the first one's bytes are checked here.
                if key == .parameters, let earlier = scan.uncheckedParameters {
                    try Self.check(UnsafeRawBufferPointer(rebasing: bytes[earlier]))
                    scan.uncheckedParameters = nil
                }
            }
            let kind = try reader.peek()
            let start = reader.offset
            if key == .parameters, kind == .object, !seen.contains(key) {
                try reader.skipUncheckedContainer()
                scan.uncheckedParameters = start..<reader.offset
            } else {
                try reader.skipValue()
            }
            seen.insert(key)
            switch (key, kind) {
            case (.method, .string):
                var value = reader.reader(at: start)
                scan.method = try value.readString()
            case (.more, .bool): scan.more = bytes[start] == UInt8(ascii: "t")
            case (.oneway, .bool): scan.oneway = bytes[start] == UInt8(ascii: "t")
            case (.upgrade, .bool): scan.upgrade = bytes[start] == UInt8(ascii: "t")
            case (.more, .null), (.oneway, .null), (.upgrade, .null), (.parameters, .null):
                break
            case (.parameters, .object):
                // Skipped: checked by the walk that decodes them, or by checkParameters.
                scan.parameters = start..<reader.offset
            default:
                scan.invalid.insert(key)
            }
        }
        try reader.expectEnd()
        if scan.method == nil { scan.invalid.insert(.method) }
        self = scan
    }

    /// Checks the bytes of a `parameters` object as JSON text, nested in the message.
    static func check(_ parameters: UnsafeRawBufferPointer) throws(JSONReadError) {
        var reader = JSONReader(parameters, depth: 1)
        try reader.skipValue()
        try reader.expectEnd()
    }
}

/// A member of a call's envelope, in the order invalid members are judged.
private enum EnvelopeMember: UInt8, CaseIterable {
    case method, more, oneway, upgrade, parameters

    /// The keys, by `rawValue`.
    private static let names = ["method", "more", "oneway", "upgrade", "parameters"]

    /// The member named `name`, or nil for a member the envelope ignores.
    init?(_ name: String) {
        guard let index = Self.names.firstIndex(of: name) else { return nil }
        self.init(rawValue: UInt8(index))
    }

    /// The member's key, as an `InvalidParameter` names it.
    var name: String { Self.names[Int(rawValue)] }
}

/// A set of envelope members, as bits.
private struct EnvelopeMembers {
    private var bits: UInt8 = 0

    func contains(_ member: EnvelopeMember) -> Bool { bits & (1 << member.rawValue) != 0 }

    mutating func insert(_ member: EnvelopeMember) { bits |= 1 << member.rawValue }

    /// The first member in judging order.
    var first: EnvelopeMember? { EnvelopeMember.allCases.first { contains($0) } }
}
