import Testing
import Varlink
import VarlinkTransport
import WidgetdPOSIX

@Suite struct CallContextTests {
    /// A context whose replies are captured as text, with whether each ended the call.
    private final class Capture {
        var replies: [(text: String, isFinal: Bool)] = []
        var open = true

        func context(more: Bool = false, oneway: Bool = false) -> CallContext {
            CallContext(
                connection: ConnectionID(rawValue: 1), peer: PeerCredentials(pid: 1, uid: 1000, gid: 1000),
                wantsMore: more, isOneway: oneway,
                deliver: { bytes, isFinal in
                    self.replies.append((String(decoding: bytes.dropLast(), as: UTF8.self), isFinal))
                },
                isConnectionOpen: { self.open })
        }
    }

    @Test func aStreamEndsWithItsFinalReplyAndLaterRepliesAreDropped() {
        let capture = Capture()
        let context = capture.context(more: true)
        context.stream(["n": 1])
        #expect(context.isOpen)
        context.reply(["n": 2])
        #expect(!context.isOpen)
        context.stream(["n": 3])
        context.fail(.permissionDenied)
        #expect(capture.replies.map(\.text) == [#"{"continues":true,"parameters":{"n":1}}"#, #"{"parameters":{"n":2}}"#])
        #expect(capture.replies.map(\.isFinal) == [false, true])
    }

    @Test func onewayCallsSendNothing() {
        let capture = Capture()
        let context = capture.context(oneway: true)
        context.reply(["n": 1])
        #expect(capture.replies.isEmpty)
        #expect(!context.isOpen)
    }

    @Test func aClosedConnectionGetsNothingAndTheContextSaysSo() {
        let capture = Capture()
        let context = capture.context(more: true)
        capture.open = false
        #expect(!context.isOpen)
        context.stream(["n": 1])
        #expect(capture.replies.isEmpty)
    }

    @Test func preEncodedRepliesAreSentAsTheyAre() {
        let capture = Capture()
        let context = capture.context()
        context.reply(encoded: VarlinkReply.encode(parameters: ["cached": true]))
        #expect(capture.replies.map(\.text) == [#"{"parameters":{"cached":true}}"#])
    }

    @Test func errorsAreFinal() {
        let capture = Capture()
        let context = capture.context(more: true)
        context.fail(VarlinkError(name: "io.widgetd.WidgetNotFound", parameters: ["widget": "a/b"]))
        #expect(capture.replies.map(\.text) == [#"{"error":"io.widgetd.WidgetNotFound","parameters":{"widget":"a/b"}}"#])
        #expect(!context.isOpen)
    }
}
