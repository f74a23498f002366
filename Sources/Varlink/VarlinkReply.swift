import FoundationEssentials
import StrictJSON

/// Encodes Varlink replies, NUL terminator included, ready to be written to a socket.
///
/// A reply is `{"parameters":{…}}`, with `"continues":true` for a reply of a stream
/// that is not the last; an error is `{"error":NAME,"parameters":{…}}`.
public enum VarlinkReply {
    /// Encodes a reply carrying `parameters`, which must encode as a JSON object.
    ///
    /// The wire types encode infallibly; a value that cannot be encoded is a programming
    /// error and traps (see ``VarlinkError/init(name:parameters:)``).
    public static func encode(parameters: some Encodable, continues: Bool = false) -> [UInt8] {
        var body: Data
        do {
            body = try VarlinkJSON.makeEncoder().encode(parameters)
        } catch {
            preconditionFailure("reply parameters of type \(type(of: parameters)) cannot be encoded as JSON")
        }
        // The parameters may be decrypted content: zero the intermediate copy.
        defer { body.withUnsafeMutableBytes { SecretWipe.zero($0) } }
        return encode(encodedParameters: body, continues: continues)
    }

    /// Zeroes an encoded reply in place (its whole storage), once it has been sent.
    public static func wipe(_ bytes: inout [UInt8]) {
        SecretWipe.zero(&bytes)
    }

    /// Wraps parameters that are already an encoded JSON object into a reply.
    public static func encode(encodedParameters: some Collection<UInt8>, continues: Bool = false) -> [UInt8] {
        var reply: [UInt8] = []
        reply.reserveCapacity(encodedParameters.count + 40)
        // Keys in sorted order, as the shared encoder would write them.
        if continues { reply.append(contentsOf: #"{"continues":true,"parameters":"#.utf8) }
        else { reply.append(contentsOf: #"{"parameters":"#.utf8) }
        reply.append(contentsOf: encodedParameters)
        reply.append(UInt8(ascii: "}"))
        reply.append(0)
        return reply
    }

    /// Encodes an error reply.
    public static func encode(error: VarlinkError) -> [UInt8] {
        var reply: [UInt8] = Array(#"{"error":"#.utf8)
        reply.append(contentsOf: JSONStringLiteral.bytes(error.name))
        reply.append(contentsOf: #","parameters":"#.utf8)
        reply.append(contentsOf: error.encodedParameters)
        reply.append(UInt8(ascii: "}"))
        reply.append(0)
        return reply
    }
}
