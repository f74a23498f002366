import Foundation
import Testing

/// Hosts draw an entry's fields in the order its provider gave them (the text order of
/// the `fields` object), so every reply lists them in that order: content, redacted (a
/// redacted field keeps its place), a placeholder in the placeholder's own order, and
/// `GetTimeline`; the same after a restart, read back from the file.
@Suite struct FieldOrderEndToEndTests {
    static let weather = "com.example.weather/forecast"
    static let health = "com.example.health/rings"

    /// Orders no sort gives, neither ascending nor descending.
    static let putOrder = ["zulu", "balance", "alpha", "mike"]
    static let appendOrder = ["mike", "alpha", "zulu", "balance"]
    static let placeholderOrder = ["mike", "balance", "title", "alpha"]

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let call: String
        let locked: Bool
        let mode: String?
        /// The order of each `fields` object in the reply, first to last.
        let orders: [[String]]
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "content", call: presentationCall(weather, "homeScreen"), locked: false, mode: "content", orders: [putOrder]),
        Case(name: "redacted", call: presentationCall(weather, "lockScreen"), locked: true, mode: "redacted", orders: [putOrder]),
        Case(name: "placeholder", call: presentationCall(health, "homeScreen"), locked: true, mode: "placeholder", orders: [placeholderOrder]),
        Case(
            name: "GetTimeline",
            call: #"{"method":"io.widgetd.Provider.GetTimeline","parameters":{"widget":"\#(weather)"}}"#,
            locked: false, mode: nil, orders: [putOrder, appendOrder]),
    ]

    static func presentationCall(_ widget: String, _ surface: String) -> String {
        #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":"\#(widget)","surface":"\#(surface)"}}"#
    }

    /// A `fields` object written by hand in `order`: `balance` sensitive, `alpha` and `title` public.
    static func fields(_ order: [String], prefix: String) -> String {
        let members = order.map { name -> String in
            let privacy = switch name {
            case "balance": #","privacy":"sensitive""#
            case "alpha", "title": #","privacy":"public""#
            default: ""
            }
            return #""\#(name)":{"value":"\#(prefix)-\#(name)"\#(privacy)}"#
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func putCall(_ widget: String) -> String {
        let date = Fixtures.rfc3339(Date().addingTimeInterval(-60))
        return #"{"method":"io.widgetd.Provider.PutTimeline","parameters":{"widget":"\#(widget)","family":"systemSmall","entries":[{"date":"\#(date)","fields":\#(fields(putOrder, prefix: "put"))}],"placeholder":{"fields":\#(fields(placeholderOrder, prefix: "sample"))}}}"#
    }

    static func appendCall(_ widget: String) -> String {
        let date = Fixtures.rfc3339(Date().addingTimeInterval(3600))
        return #"{"method":"io.widgetd.Provider.AppendEntries","parameters":{"widget":"\#(widget)","entries":[{"date":"\#(date)","fields":\#(fields(appendOrder, prefix: "later"))}]}}"#
    }

    /// The member names of every `"fields":{…}` object in `text`, in text order.
    static func fieldOrders(in text: String) -> [[String]] {
        let bytes = Array(text.utf8)
        let marker = Array(#""fields":{"#.utf8)
        var orders: [[String]] = []
        var at = 0
        while at + marker.count <= bytes.count {
            guard Array(bytes[at..<(at + marker.count)]) == marker else { at += 1; continue }
            var index = at + marker.count
            var depth = 1
            var names: [String] = []
            var expectingKey = true
            while index < bytes.count, depth > 0 {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    var end = index + 1
                    while bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                    if depth == 1 && expectingKey { names.append(String(decoding: bytes[(index + 1)..<end], as: UTF8.self)) }
                    expectingKey = false
                    index = end + 1
                    continue
                }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ","): if depth == 1 { expectingKey = true }
                default: break
                }
                index += 1
            }
            orders.append(names)
            at = index
        }
        return orders
    }

    @Test(arguments: cases)
    func fieldsComeBackInTheOrderTheProviderGaveThem(_ check: Case) throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0"])
        try daemon.start()
        var client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        for widget in [Self.weather, Self.health] {
            let put = try ExactNumberEndToEndTests.rawCall(client, Self.putCall(widget))
            #expect(put.contains("\"generation\""), "\(put)")
        }
        let append = try ExactNumberEndToEndTests.rawCall(client, Self.appendCall(Self.weather))
        #expect(append.contains("\"generation\""), "\(append)")

        for round in ["as stored", "after a restart"] {
            if round == "after a restart" {
                _ = daemon.stop()
                try daemon.start()
                client = try daemon.client()
                try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
            }
            if check.locked {
                try client.ok("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false])
                try client.ok("io.widgetd.Device.Lock")
            }
            let reply = try ExactNumberEndToEndTests.rawCall(client, check.call)
            if let mode = check.mode {
                #expect(reply.contains(#""mode":"\#(mode)""#), "\(round): \(reply)")
            }
            #expect(Self.fieldOrders(in: reply) == check.orders, "\(round): \(reply)")
            if check.mode == "redacted" {
                #expect(reply.contains(#""balance":{"redacted":true,"value":"sample-balance"}"#), "\(round): \(reply)")
                #expect(!reply.contains("put-balance"), "\(round): \(reply)")
            }
        }
    }
}
