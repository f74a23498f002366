import Foundation

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

    /// Decodes a call from one message (without its NUL).
    ///
    /// Throws ``VarlinkCallDecodingError/notAJSONObject`` when the bytes are not a JSON
    /// object (the connection cannot be trusted any more), and
    /// ``VarlinkCallDecodingError/invalidCall(_:)`` for an object that is not a valid call,
    /// carrying the error to answer with.
    public init(decoding bytes: [UInt8]) throws(VarlinkCallDecodingError) {
        let message = WipingBuffer(bytes)
        let envelope: Envelope
        do {
            envelope = try message.withData { try VarlinkJSON.makeDecoder().decode(Envelope.self, from: $0) }
        } catch let error as DecodingError {
            switch error {
            case .keyNotFound(let key, _):
                throw .invalidCall(.invalidParameter(key.stringValue))
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                guard let first = context.codingPath.first else { throw .notAJSONObject }
                throw .invalidCall(.invalidParameter(first.stringValue))
            @unknown default:
                throw .notAJSONObject
            }
        } catch {
            throw .notAJSONObject
        }
        guard let dot = envelope.method.lastIndex(of: "."),
              dot != envelope.method.startIndex,
              envelope.method.index(after: dot) != envelope.method.endIndex
        else { throw .invalidCall(.invalidParameter("method")) }
        self.method = envelope.method
        self.interface = String(envelope.method[..<dot])
        self.member = String(envelope.method[envelope.method.index(after: dot)...])
        self.more = envelope.more ?? false
        self.oneway = envelope.oneway ?? false
        self.upgrade = envelope.upgrade ?? false
        self.message = message
    }

    /// Decodes the call's parameters as `P`; absent parameters decode as `{}`.
    ///
    /// A missing key, a value of the wrong type or a value `P` rejects throws
    /// `org.varlink.service.InvalidParameter` naming the parameter's path, such as
    /// `widget` or `entries[0].date`.
    public func parameters<P: Decodable>(_ type: P.Type) throws(VarlinkError) -> P {
        do {
            let envelope = try message.withData {
                try VarlinkJSON.makeDecoder().decode(ParametersEnvelope<P>.self, from: $0)
            }
            if let value = envelope.value { return value }
            return try VarlinkJSON.makeDecoder().decode(P.self, from: Data("{}".utf8))
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
        let envelope = try message.withData {
            try VarlinkJSON.makeDecoder().decode(ParametersEnvelope<P>.self, from: $0)
        }
        if let value = envelope.value { return value }
        return try VarlinkJSON.makeDecoder().decode(P.self, from: Data("{}".utf8))
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
        if keys.first?.stringValue == ParametersEnvelope<Never?>.Key.parameters.stringValue {
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

/// Why a message is not a call.
public enum VarlinkCallDecodingError: Error, Sendable, Equatable {
    /// The message is not JSON, or not a JSON object: close the connection.
    case notAJSONObject
    /// A JSON object that is not a valid call: answer with this error.
    case invalidCall(VarlinkError)
}

/// The call's envelope; `parameters` is only checked to be an object.
private struct Envelope: Decodable {
    let method: String
    let more: Bool?
    let oneway: Bool?
    let upgrade: Bool?
    let parameters: AnyJSONObject?
}

/// Accepts any JSON object and keeps nothing of it.
private struct AnyJSONObject: Decodable {
    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyKey.self)
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// The `parameters` member decoded as `P`, or `nil` when absent or null.
struct ParametersEnvelope<P: Decodable>: Decodable {
    enum Key: String, CodingKey { case parameters }

    let value: P?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.parameters), try !container.decodeNil(forKey: .parameters) {
            value = try container.decode(P.self, forKey: .parameters)
        } else {
            value = nil
        }
    }
}
