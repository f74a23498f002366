import Varlink
import WidgetModel

/// Encodes every io.widgetd reply so that field values leave exactly as their provider
/// sent them: through `JSONTreeEncoder` and `JSONWriter`, never Foundation's
/// `JSONEncoder`, which would turn a 30-digit integer into the nearest `Double`. Keys
/// are sorted, so equal values give equal bytes, except that an entry's fields keep the
/// timeline's order (hosts draw them in it).
enum ExactReply {
    /// The NUL-terminated reply carrying `parameters`.
    ///
    /// The wire types encode infallibly (a `Double` reply member is finite by
    /// construction); one that cannot be encoded is a programming error and traps.
    static func encode(parameters: some Encodable, continues: Bool = false) -> [UInt8] {
        var body: [UInt8]
        do {
            body = try JSONTreeEncoder.bytes(parameters)
        } catch {
            preconditionFailure("reply parameters of type \(type(of: parameters)) cannot be encoded as JSON")
        }
        // The parameters may be decrypted content: zero the intermediate copy.
        defer { VarlinkReply.wipe(&body) }
        return VarlinkReply.encode(encodedParameters: body, continues: continues)
    }
}
