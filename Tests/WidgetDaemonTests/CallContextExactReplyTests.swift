import Testing
import Varlink
@testable import VarlinkTransport
@testable import WidgetDaemon
import WidgetdPOSIX
import WidgetdWire

/// The service's side of the transport's call contexts: its replies encoded exactly,
/// what the server answers for it, and its reading of the output tags.
@Suite struct CallContextExactReplyTests {
    @Test func streamingWithoutMoreSendsAFinalReply() {
        var replies: [(text: String, isFinal: Bool)] = []
        let context = CallContext(
            connection: ConnectionID(rawValue: 1), peer: PeerCredentials(pid: 1, uid: 1000, gid: 1000), wantsMore: false,
            deliver: { bytes, isFinal in replies.append((String(decoding: bytes.dropLast(), as: UTF8.self), isFinal)) })
        context.stream(["n": 1])
        #expect(replies.map(\.text) == [#"{"parameters":{"n":1}}"#])
        #expect(replies.map(\.isFinal) == [true])
    }

    /// The server answers GetInfo and GetInterfaceDescription with the bytes the daemon
    /// sent before the server left it: ExactReply's (which writes a newline as `\u000a`,
    /// where Foundation's encoder writes `\n`).
    @Test func serviceInterfaceRepliesAreTheBytesExactReplyMakes() {
        let service = ServiceDescription.widgetd
        #expect(service.infoReply == ExactReply.encode(parameters: ServiceInfo.widgetd))
        for definition in InterfaceDefinition.all {
            let reply = InterfaceDescriptionReply(description: definition.text)
            #expect(service.descriptionReply(for: definition.name) == ExactReply.encode(parameters: reply), "\(definition.name)")
        }
    }

    /// An output tag the service did not make is unreadable: its output is dropped.
    @Test func anUnknownOutputTagIsUnreadable() throws {
        struct ForeignTag: OutputTag { var logMetadata: [String: String] { [:] } }
        /// Asks the service's rule about a foreign tag and a class-`none` reply.
        final class Verdicts: UnsentOutputHolder {
            private(set) var verdicts: [Bool] = []
            func dropUnsentOutput(where unreadable: (any OutputTag) -> Bool) {
                verdicts = [unreadable(ForeignTag()), unreadable(ReplyProtection(protectionClass: .none))]
            }
        }
        let harness = try ServiceHarness()
        let output = Verdicts()
        harness.service.timelines.unsentOutput = output
        harness.service.timelines.dropUnreadableOutput()
        #expect(output.verdicts == [true, false])
    }
}
