import FoundationEssentials
import Testing
@testable import VarlinkTransport
@testable import WidgetDaemon
import WidgetdPOSIX
import WidgetdWire
import WidgetModel

/// Every presentation the daemon sends is written by hand (`ExactReply.encode(presentation:)`);
/// those bytes, envelope and `continues` included, are the ones the `Encodable` path
/// makes of the same `PresentationReply` (the model's tests compare the presentation
/// writer itself on many more values).
@Suite struct ExactPresentationReplyTests {
    /// A timeline whose fields hold each kind of value, escapes, non-ASCII text and
    /// numbers whose text must be kept, with relevance and a later entry; and a placeholder.
    static let timeline = try! Timeline.decode(from: Array(#"""
        {"entries":[
         {"date":"2026-01-01T00:00:00.125Z","relevance":{"score":0.75,"duration":3600},"fields":{
          "zulu":{"value":"a \"quoted\" back\\slash\u0001 ☃ 👩‍👩‍👧","privacy":"sensitive"},
          "title":{"value":"Account","privacy":"public"},
          "big":{"value":123456789012345678901234567890},
          "exp":{"value":1E5,"privacy":"sensitive"},
          "obj":{"value":{"b":[1,-0,0.10,null,true],"a":{"ключ":"\n"},"Z":false}},
          "none":{"value":null}}},
         {"date":"2026-01-01T01:00:00Z","fields":{"title":{"value":"Later"}}}],
        "policy":{"kind":"atEnd"}}
        """#.utf8))

    static let placeholder = try! Placeholder.decode(from: Array(#"""
        {"fields":{"zulu":{"value":"— €","privacy":"sensitive"},"title":{"value":"Account","privacy":"public"}}}
        """#.utf8))

    static let widget = try! WidgetID(##"com.example/odd"kind\#1"##)

    static var presentations: [Presentation] {
        var all: [Presentation] = []
        for decision in PresentationDecision.allCases {
            for surface in Surface.allCases {
                for reloadDue in [nil, Date(timeIntervalSince1970: 1_767_225_000)] {
                    all.append(PresentationRules.present(
                        decision, widget: widget, timeline: timeline, placeholder: placeholder, reloadDue: reloadDue,
                        surface: surface, now: Date(timeIntervalSince1970: 1_767_225_601.5), state: .unlocked))
                }
            }
            // No timeline and no placeholder: the empty stand-in.
            all.append(PresentationRules.present(
                decision, widget: widget, timeline: nil, placeholder: nil, reloadDue: nil, surface: .lockScreen,
                now: Date(timeIntervalSince1970: 1_767_225_601), state: .unlocked))
        }
        return all
    }

    @Test(arguments: [false, true])
    func presentationRepliesAreTheBytesOfTheEncodablePath(continues: Bool) {
        for presentation in Self.presentations {
            let written = ExactReply.encode(presentation: presentation, continues: continues)
            let encoded = ExactReply.encode(parameters: PresentationReply(presentation: presentation), continues: continues)
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self))")
        }
    }

    /// Without `more`, a Watch is answered once, as a final reply.
    @Test func aPresentationWithoutMoreIsAFinalReply() {
        var replies: [(bytes: [UInt8], isFinal: Bool)] = []
        let context = CallContext(
            connection: ConnectionID(rawValue: 1), peer: PeerCredentials(pid: 1, uid: 1000, gid: 1000), wantsMore: false,
            deliver: { bytes, isFinal in replies.append((bytes, isFinal)) })
        let presentation = Self.presentations[0]
        context.reply(presentation: presentation, protecting: nil)
        #expect(replies.map(\.bytes) == [ExactReply.encode(parameters: PresentationReply(presentation: presentation))])
        #expect(replies.map(\.isFinal) == [true])
    }
}
