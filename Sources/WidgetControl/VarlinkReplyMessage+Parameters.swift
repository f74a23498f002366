import Varlink
import WidgetModel
import WidgetdClient

extension VarlinkReplyMessage {
    /// The reply's `parameters` object as values (empty when the reply has none), read
    /// by the strict reader so that a number keeps its text: a value is shown as stored.
    var parameters: [String: JSONValue] {
        guard case .object(let object)? = withParameterBytes({ try? JSONValue.parse($0) }) else { return [:] }
        return object
    }

    /// Decodes the parameters as a wire type; a mismatch is a malformed reply.
    /// Straight from the parsed values (`JSONTreeDecoder`), so a field's number keeps
    /// its text rather than passing through a `Double`.
    func decode<T: Decodable>(_ type: T.Type) throws(WidgetdError) -> T {
        do {
            return try JSONTreeDecoder.decode(T.self, from: .object(parameters))
        } catch {
            throw .malformedReply("unexpected reply shape: \(error)")
        }
    }
}
