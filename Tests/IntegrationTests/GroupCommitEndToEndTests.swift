import Foundation
import Testing

/// Writes arriving together are committed together, with the outcome of committing
/// them one after another: every one acknowledged, generations distinct and in a
/// sequence, the last one stored and still there after a restart.
@Suite struct GroupCommitEndToEndTests {
    let weather = "com.example.weather/forecast"

    @Test func concurrentWritesOfOneWidgetGetSuccessiveGenerations() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let clients = try (0..<6).map { _ in try daemon.client() }
        for (index, client) in clients.enumerated() {
            try client.send("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather, secret: "S\(index)"))
        }
        var secretOf: [Int: String] = [:]
        for (index, client) in clients.enumerated() {
            let reply = try client.receive()
            #expect(reply.error == nil)
            let generation = try #require(reply.parameters["generation"] as? Int)
            secretOf[generation] = "S\(index)"
        }
        #expect(Set(secretOf.keys) == Set(1...6))

        let reader = try daemon.client()
        let stored = try reader.ok("io.widgetd.Provider.GetTimeline", ["widget": weather])
        #expect(stored["generation"] as? Int == 6)
        let shown = try reader.ok("io.widgetd.Host.GetPresentation", ["widget": weather, "surface": "homeScreen"])
        #expect(Fixtures.field(shown, "balance")["value"] as? String == secretOf[6])

        daemon.stop()
        try daemon.start()
        let again = try daemon.client().ok("io.widgetd.Provider.GetTimeline", ["widget": weather])
        #expect(again["generation"] as? Int == 6)
    }

    @Test func aWriteIsVisibleOnceAcknowledged() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let writer = try daemon.client()
        let reader = try daemon.client()
        try writer.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather, secret: "OLD"))
        // The read is sent right behind the write, on another connection: whichever
        // the daemon takes first, the write is committed before the read is answered
        // if the read comes after it, and the reply is one of the two states.
        try writer.send("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather, secret: "NEW"))
        try reader.send("io.widgetd.Provider.GetTimeline", ["widget": weather])
        #expect(try writer.receive().parameters["generation"] as? Int == 2)
        let generation = try reader.receive().parameters["generation"] as? Int
        #expect(generation == 1 || generation == 2)
        #expect(try reader.ok("io.widgetd.Provider.GetTimeline", ["widget": weather])["generation"] as? Int == 2)
    }
}
