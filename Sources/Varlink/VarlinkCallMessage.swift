/// Encodes Varlink calls, NUL terminator included, as a client writes them.
///
/// A call is `{"method":NAME,"parameters":{…}}`, with `"more":true` for a stream. The
/// parameters come already encoded, so that a client keeps its own JSON writer (one
/// that keeps numbers as their text, say) and a secret parameter can be spliced in by
/// the caller into memory it wipes.
public enum VarlinkCallMessage {
    /// The bytes of a call whose parameters are an encoded JSON object.
    public static func encode(method: String, encodedParameters: some Collection<UInt8>, more: Bool = false) -> [UInt8] {
        var message = head(method: method, more: more)
        message.reserveCapacity(message.count + encodedParameters.count + 2)
        message.append(contentsOf: encodedParameters)
        message.append(UInt8(ascii: "}"))
        message.append(0)
        return message
    }

    /// Everything before the parameters object: `{"method":NAME,["more":true,]"parameters":`.
    ///
    /// A caller that writes secret parameters appends the object and then ``tail`` into
    /// its own wiped buffer.
    public static func head(method: String, more: Bool = false) -> [UInt8] {
        var message: [UInt8] = Array(#"{"method":"#.utf8)
        message.append(contentsOf: JSONStringLiteral.bytes(method))
        if more { message.append(contentsOf: #","more":true"#.utf8) }
        message.append(contentsOf: #","parameters":"#.utf8)
        return message
    }

    /// What follows the parameters object: the call's closing brace and its NUL.
    public static let tail: [UInt8] = [UInt8(ascii: "}"), 0]
}
