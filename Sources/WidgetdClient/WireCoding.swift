import Varlink
import WidgetModel

/// How the client turns wire types into call bytes and replies back into wire types.
///
/// Both go through the strict writer and reader (`JSONTreeEncoder`, `JSONValue`,
/// `JSONTreeDecoder`), which keep a field's number as its text: a value reaches the
/// daemon and comes back digit for digit.
package enum WireCoding {
    /// The NUL-terminated bytes of a call of `method` with `parameters`.
    static func call(_ method: String, _ parameters: some Encodable, more: Bool = false) throws(WidgetdError) -> [UInt8] {
        // Bytes straight from the tree, so that an entry's fields keep their order.
        let bytes: [UInt8]
        do { bytes = try JSONTreeEncoder.bytes(parameters) } catch {
            throw .malformedReply("parameters cannot be encoded: \(error)")
        }
        return VarlinkCallMessage.encode(method: method, encodedParameters: bytes, more: more)
    }

    /// The NUL-terminated bytes of a call of `method` with parameters given as values:
    /// compact JSON, keys sorted, numbers exactly as their text (`JSONWriter`), so that a
    /// field value from a timeline file reaches the daemon digit for digit.
    package static func call(_ method: String, values parameters: [String: JSONValue], more: Bool = false) -> [UInt8] {
        VarlinkCallMessage.encode(method: method, encodedParameters: JSONValue.object(parameters).jsonBytes, more: more)
    }

    /// The NUL-terminated bytes of a call of `method` with `parameters` and with members
    /// already written as JSON text (`texts`, sent byte for byte: a timeline file's
    /// `fields` keep their order).
    package static func call(_ method: String, values parameters: [String: JSONValue], texts: [String: [UInt8]]) -> [UInt8] {
        var body: [UInt8] = [UInt8(ascii: "{")]
        var members = parameters.mapValues(\.jsonBytes)
        members.merge(texts) { _, text in text }
        for (index, name) in members.keys.sorted().enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += JSONValue.string(name).jsonBytes + [UInt8(ascii: ":")] + members[name]!
        }
        body.append(UInt8(ascii: "}"))
        return VarlinkCallMessage.encode(method: method, encodedParameters: body, more: false)
    }

    /// The reply's parameters as values.
    static func parameters(of reply: VarlinkReplyMessage) throws(WidgetdError) -> [String: JSONValue] {
        let value = reply.withParameterBytes { try? JSONValue.parse($0) }
        guard case .object(let object)? = value else { throw .malformedReply("reply parameters are not an object") }
        return object
    }

    /// A successful reply decoded as `T`, or the error it carries thrown.
    static func decode<T: Decodable>(_ type: T.Type, from reply: VarlinkReplyMessage) throws(WidgetdError) -> T {
        let parameters = try parameters(of: reply)
        if let name = reply.error { throw WidgetdError(name: name, parameters: parameters) }
        do {
            return try JSONTreeDecoder.decode(T.self, from: .object(parameters))
        } catch {
            throw .malformedReply("unexpected reply shape: \(error)")
        }
    }
}
