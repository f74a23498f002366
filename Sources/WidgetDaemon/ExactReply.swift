import StrictJSON
import Varlink
import WidgetdWire
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

    /// The NUL-terminated reply carrying `presentation` (a `PresentationReply`): the bytes
    /// ``encode(parameters:continues:)`` makes of it, written by hand straight into the
    /// reply (`PresentationReply.write(to:)`), with no tree and no intermediate copy.
    ///
    /// Every presentation the daemon sends goes through here: a refresh pass encodes one
    /// for each widget and surface it shows, and the `Encodable` tree costs nearly as
    /// much as reading and presenting them (measured in commit 9aca252).
    /// `ExactPresentationReplyTests` holds the two equal.
    static func encode(presentation: Presentation, continues: Bool = false) -> [UInt8] {
        encode(written: PresentationReply(presentation: presentation), continues: continues)
    }

    /// The NUL-terminated reply carrying `parameters`, which write their own bytes
    /// (``JSONWritable``): those ``encode(parameters:continues:)`` makes, with no tree.
    static func encode(written parameters: some JSONWritable, continues: Bool = false) -> [UInt8] {
        VarlinkReply.encode(continues: continues) { parameters.write(to: &$0) }
    }
}
