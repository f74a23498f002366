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

    /// Encodes a reply whose parameters `write` writes (a JSON object) straight into it.
    ///
    /// A counting pass measures the reply first, then it is written once into an array
    /// of exactly that size: no growable or intermediate copy of the parameters (which
    /// may be decrypted content) exists. `write` runs twice and writes the same bytes
    /// both times, except that object members may come in another order while counting.
    public static func encode(continues: Bool = false, writingParameters write: (inout JSONWriter) -> Void) -> [UInt8] {
        // Keys in sorted order, as the shared encoder would write them.
        let opening: StaticString = continues ? #"{"continues":true,"parameters":"# : #"{"parameters":"#
        func reply(_ writer: inout JSONWriter) {
            writer.raw(opening)
            write(&writer)
            writer.byte(UInt8(ascii: "}"))
            writer.byte(0)
        }
        var counter = JSONWriter()
        reply(&counter)
        return [UInt8](unsafeUninitializedCapacity: counter.count) { buffer, initialized in
            var writer = JSONWriter(into: UnsafeMutableRawBufferPointer(buffer))
            reply(&writer)
            precondition(writer.count == counter.count, "the reply's parameters wrote other bytes than they counted")
            initialized = writer.count
        }
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
