import VarlinkTransport
import WidgetdWire
import WidgetModel

/// Every io.widgetd reply is encoded exactly (``ExactReply``): field values leave as
/// their provider sent them. The transport's ``CallContext`` sends bytes; these say how
/// the service's parameters become them.
extension CallContext {
    /// Sends the final reply.
    func reply(_ parameters: some Encodable) {
        send(isFinal: true) { ExactReply.encode(parameters: parameters) }
    }

    /// Sends the final reply, which holds content under `protection`: if the socket does
    /// not take it at once, what waits is dropped (and the connection closed) when that
    /// content's class is purged before it is sent.
    func reply(_ parameters: some Encodable, protecting protection: ReplyProtection) {
        send(isFinal: true, protecting: protection) { ExactReply.encode(parameters: parameters) }
    }

    /// Sends the final reply, written without a tree (``JSONWritable``).
    func reply(_ parameters: some Encodable & JSONWritable) {
        send(isFinal: true) { ExactReply.encode(written: parameters) }
    }

    /// Sends the final reply carrying `presentation` (``ExactReply/encode(presentation:continues:)``),
    /// marked with the content it holds, if any (see ``reply(_:protecting:)``).
    func reply(presentation: Presentation, protecting protection: ReplyProtection?) {
        send(isFinal: true, protecting: protection) { ExactReply.encode(presentation: presentation) }
    }

    /// Sends a reply with `continues: true`. Without `more` there is no stream: the
    /// reply is sent as the final one instead, so the client still gets an answer.
    /// `protection`: what protected content it holds, if any (see ``reply(_:protecting:)``).
    func stream(_ parameters: some Encodable, protecting protection: ReplyProtection? = nil) {
        if wantsMore {
            send(isFinal: false, protecting: protection) { ExactReply.encode(parameters: parameters, continues: true) }
        } else {
            send(isFinal: true, protecting: protection) { ExactReply.encode(parameters: parameters) }
        }
    }

    /// ``stream(_:protecting:)`` for parameters written without a tree (``JSONWritable``).
    func stream(_ parameters: some Encodable & JSONWritable, protecting protection: ReplyProtection? = nil) {
        if wantsMore {
            send(isFinal: false, protecting: protection) { ExactReply.encode(written: parameters, continues: true) }
        } else {
            send(isFinal: true, protecting: protection) { ExactReply.encode(written: parameters) }
        }
    }
}
