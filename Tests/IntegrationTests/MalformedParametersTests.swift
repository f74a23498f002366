import Foundation
import Testing
import TestSupport

/// Parameters that are not JSON text close the connection with no reply, for every
/// method, including the ones that ignore their parameters or are not served: the
/// parameters are checked by the walk that decodes them (or alone), never skipped.
/// Each malformation's well-formed twin is answered. (`WIDGETD_BIN` runs the same table
/// against another build, to compare the two.)
@Suite(.serialized) struct MalformedParametersTests {
    static let methods: [String] = [
        "io.widgetd.Device.GetStatus", "io.widgetd.Device.SetPasscode", "io.widgetd.Device.Unlock", "io.widgetd.Device.Lock",
        "io.widgetd.Device.Wipe", "io.widgetd.Device.GetSettings", "io.widgetd.Device.SetSettings",
        "io.widgetd.Device.ReportPasscodeOutOfStep", "io.widgetd.Device.Monitor",
        "io.widgetd.Provider.PutTimeline", "io.widgetd.Provider.AppendEntries", "io.widgetd.Provider.GetTimeline",
        "io.widgetd.Provider.CloseTimeline", "io.widgetd.Provider.DeleteTimeline", "io.widgetd.Provider.WatchReloads",
        "io.widgetd.Provider.ListProviders",
        "io.widgetd.Host.ListWidgets", "io.widgetd.Host.GetPresentation", "io.widgetd.Host.Watch", "io.widgetd.Host.ReloadTimelines",
        "org.varlink.service.GetInfo", "org.varlink.service.GetInterfaceDescription",
        "io.widgetd.Host.Fly", "com.example.Nothing.Call",
    ]

    /// A malformed parameters object and its well-formed twin.
    static let malformations: [(broken: [UInt8], twin: [UInt8])] = {
        func text(_ broken: String, _ twin: String) -> (broken: [UInt8], twin: [UInt8]) { (Array(broken.utf8), Array(twin.utf8)) }
        let entry = #"{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1}}}"#
        return [
            text(#"{"widget":"a/b","entries":[\#(entry),]}"#, #"{"widget":"a/b","entries":[\#(entry)]}"#),
            text(#"{"widget":"a/\q","entries":[]}"#, #"{"widget":"a/\/","entries":[]}"#),
            text(#"{"widget":5,"entries":[],"x":"\ud800"}"#, #"{"widget":5,"entries":[],"x":"\ud800\udc00"}"#),
            text(#"{"widget":"a/b","entries":[{"date":01}]}"#, #"{"widget":"a/b","entries":[{"date":1}]}"#),
            text(#"{"widget":"a/b","passcode":"1","new":"2","entries":[],"z":tru}"#, #"{"widget":"a/b","passcode":"1","new":"2","entries":[],"z":true}"#),
            text(#"{"extra":[[[{"a":1.}]]],"widget":"a/b"}"#, #"{"extra":[[[{"a":1.0}]]],"widget":"a/b"}"#),
            text(#"{"widget":"a/b","widget":"a/b"x,"entries":[]}"#, #"{"widget":"a/b","widget":"a/b","entries":[]}"#),
            text(#"{"interface":"io.widgetd.Host" "x":1}"#, #"{"interface":"io.widgetd.Host","x":1}"#),
            (Array(#"{"widget":"a/"#.utf8) + [0xC3, 0x28] + Array(#"","entries":[]}"#.utf8),
             Array(#"{"widget":"a/"#.utf8) + [0xC3, 0xA9] + Array(#"","entries":[]}"#.utf8)),
            (Array(#"{"widget":"a/b","entries":[],"s":""#.utf8) + [0x01] + Array(#""}"#.utf8),
             Array(#"{"widget":"a/b","entries":[],"s":""#.utf8) + Array(#"\u0001"}"#.utf8)),
            text(#"{"widget":"a/b","entries":[]"#, #"{"widget":"a/b","entries":[]}"#),
        ]
    }()

    private static func message(_ method: String, _ parameters: [UInt8]) -> [UInt8] {
        Array(#"{"method":"\#(method)","parameters":"#.utf8) + parameters + Array("}\0".utf8)
    }

    @Test func malformedParametersCloseTheConnectionForEveryMethod() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        for method in Self.methods {
            for (index, malformation) in Self.malformations.enumerated() {
                let broken = try daemon.client()
                try broken.send(raw: Self.message(method, malformation.broken))
                #expect(broken.isClosed(), "\(method), malformation \(index): answered")
                let twin = try daemon.client()
                try twin.send(raw: Self.message(method, malformation.twin))
                #expect(twin.receive(within: 20) != nil, "\(method), malformation \(index): its twin was not answered")
            }
        }
        // The daemon is still serving.
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] as? String != nil)
    }
}
