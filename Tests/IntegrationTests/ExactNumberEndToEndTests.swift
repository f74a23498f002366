import Foundation
import Glibc
import Testing

/// A field value is served exactly as its provider sent it (issue 13, defect 10): a
/// number keeps its literal text on the whole path — provider → daemon → file → host
/// (`GetPresentation`), provider (`GetTimeline`) and `widgetctl` — or is refused with
/// `InvalidTimeline` naming the field; it is never silently changed.
@Suite struct ExactNumberEndToEndTests {
    static let widget = "com.example.clock/world"

    /// Literals that a `Double` would change: 30 digits (both signs), negative zero, a
    /// fraction no binary float holds, an exponent in capitals, a trailing zero, an
    /// underflow to zero, and numbers inside an array and an object.
    static let literals = [
        "123456789012345678901234567890", "-987654321098765432109876543210", "-0", "0.1", "1E5", "1.50",
        "1e-400", "[1E5,{\"x\":0.10}]",
    ]

    /// The PutTimeline message, written by hand: no JSON library may touch the literals.
    static func putMessage(_ values: [String], widget: String = widget) -> [UInt8] {
        let fields = values.enumerated().map { "\"n\($0.offset)\":{\"value\":\($0.element)}" }.joined(separator: ",")
        let date = Fixtures.rfc3339(Date().addingTimeInterval(-60))
        let text = #"{"method":"io.widgetd.Provider.PutTimeline","parameters":{"widget":"\#(widget)","entries":[{"date":"\#(date)","fields":{\#(fields)}}]}}"#
        return Array(text.utf8) + [0]
    }

    /// The next reply's exact bytes (no JSON parser in between).
    static func rawReply(_ client: VarlinkTestClient) throws -> String {
        var message: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = recv(client.fd, &byte, 1, 0)
            guard n == 1 else { throw VarlinkTestClient.Failure(description: "connection closed") }
            if byte == 0 { return String(decoding: message, as: UTF8.self) }
            message.append(byte)
        }
    }

    static func rawCall(_ client: VarlinkTestClient, _ text: String) throws -> String {
        try client.send(raw: Array(text.utf8) + [0])
        return try rawReply(client)
    }

    @Test func numbersInFieldValuesAreServedAsTheirLiteralText() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.send(raw: Self.putMessage(Self.literals))
        let put = try Self.rawReply(client)
        #expect(put.contains("\"generation\""), "\(put)")

        let presentation = try Self.rawCall(
            client, #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":"\#(Self.widget)","surface":"homeScreen"}}"#)
        let timeline = try Self.rawCall(
            client, #"{"method":"io.widgetd.Provider.GetTimeline","parameters":{"widget":"\#(Self.widget)"}}"#)
        // A second GetPresentation is answered from the presentation cache.
        let cached = try Self.rawCall(
            client, #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":"\#(Self.widget)","surface":"homeScreen"}}"#)
        for (index, literal) in Self.literals.enumerated() {
            let member = "\"n\(index)\":{\"value\":\(literal)}"
            #expect(presentation.contains(member), "GetPresentation: \(member) in \(presentation)")
            #expect(timeline.contains(member), "GetTimeline: \(member) in \(timeline)")
            #expect(cached.contains(member), "cached GetPresentation: \(member) in \(cached)")
        }

        // And after a restart, read back from the file.
        _ = daemon.stop()
        try daemon.start()
        let again = try daemon.client()
        let reread = try Self.rawCall(
            again, #"{"method":"io.widgetd.Provider.GetTimeline","parameters":{"widget":"\#(Self.widget)"}}"#)
        for (index, literal) in Self.literals.enumerated() {
            #expect(reread.contains("\"n\(index)\":{\"value\":\(literal)}"), "after restart: \(reread)")
        }
    }

    @Test(arguments: ["1e400", "-1e400", "[1e400]"])
    func aNumberNoDoubleCanHoldIsRefusedNamingTheField(literal: String) throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.send(raw: Self.putMessage(["1", literal]))
        let reply = try client.receive()
        #expect(reply.error == "io.widgetd.InvalidTimeline")
        #expect((reply.parameters["reason"] as? String)?.contains(#"entries[0].fields["n1"].value"#) == true, "\(reply.parameters)")
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": Self.widget]).error == "io.widgetd.WidgetNotFound")
    }

    /// `widgetctl put` of a file and `widgetctl timeline`/`get` (text and `--json`)
    /// keep every digit.
    @Test func widgetctlKeepsTheDigitsBothWays() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let file = daemon.root.appendingPathComponent("exact.json")
        let date = Fixtures.rfc3339(Date().addingTimeInterval(-60))
        let big = "123456789012345678901234567890"
        try #"{"entries":[{"date":"\#(date)","fields":{"big":{"value":\#(big)},"exp":{"value":1E5},"neg":{"value":-0}}}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let env = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "WIDGETD_SOCKET": daemon.socketPath]
        let binary = WidgetctlTests.binary
        let put = try ProcessRunner.run(binary, ["put", Self.widget, file.path], environment: env)
        #expect(put.status == 0, "\(put.error)")
        for arguments in [["--json", "timeline", Self.widget], ["--json", "get", Self.widget]] {
            let shown = try ProcessRunner.run(binary, arguments, environment: env)
            #expect(shown.status == 0, "\(shown.error)")
            #expect(shown.output.contains(#""big":{"value":\#(big)}"#), "\(arguments): \(shown.output)")
            #expect(shown.output.contains(#""exp":{"value":1E5}"#), "\(arguments): \(shown.output)")
            #expect(shown.output.contains(#""neg":{"value":-0}"#), "\(arguments): \(shown.output)")
        }
        let text = try ProcessRunner.run(binary, ["get", Self.widget], environment: env)
        #expect(text.output.contains(big), "\(text.output)")
        #expect(text.output.contains("1E5"), "\(text.output)")
    }
}
