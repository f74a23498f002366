import FoundationEssentials
import WidgetModel

/// One successful Varlink reply: its parameters, and whether more replies follow.
public struct VarlinkReply: Sendable {
    /// The reply's `parameters` object (empty when the reply has none).
    public let parameters: [String: JSONValue]
    /// True while a `more` call has further replies to come.
    public let continues: Bool

    /// A reply with these parameters.
    public init(parameters: [String: JSONValue], continues: Bool = false) {
        self.parameters = parameters
        self.continues = continues
    }

    /// Decodes the parameters as a typed value; a mismatch is a malformed reply.
    /// Straight from the parsed values (`JSONTreeDecoder`), so a field's number keeps
    /// its text rather than passing through a `Double`.
    public func decode<T: Decodable>(_ type: T.Type) throws(VarlinkClientError) -> T {
        do {
            return try JSONTreeDecoder.decode(T.self, from: .object(parameters))
        } catch {
            throw .malformedReply("unexpected reply shape: \(error)")
        }
    }
}
