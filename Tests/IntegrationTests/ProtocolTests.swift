import Foundation
import Testing
import TestSupport

/// The Varlink wire: malformed input, standard errors, pipelining, and a real client.
@Suite struct ProtocolTests {
    @Test func malformedMessagesGetStandardErrorsAndOtherClientsStayServed() throws {
        let daemon = try DaemonProcess(daemon: ["MaxMessageBytes=65536"])
        try daemon.start()
        let good = try daemon.client()

        let unknownMethod = try daemon.client().call("io.widgetd.Host.Fly")
        #expect(unknownMethod.error == "org.varlink.service.MethodNotFound")
        let unknownInterface = try daemon.client().call("com.example.Nothing.Call")
        #expect(unknownInterface.error == "org.varlink.service.InterfaceNotFound")
        let wrongType = try daemon.client().call("io.widgetd.Host.GetPresentation", ["widget": 42, "surface": "homeScreen"])
        #expect(wrongType.error == "org.varlink.service.InvalidParameter")
        #expect(wrongType.parameters["parameter"] as? String == "widget")
        let badSurface = try daemon.client().call(
            "io.widgetd.Host.GetPresentation", ["widget": "com.example.clock/x", "surface": "moon"])
        #expect(badSurface.error == "org.varlink.service.InvalidParameter")

        let invalidJSON = try daemon.client()
        try invalidJSON.send(raw: Array("{\"method\": nope}\0".utf8))
        #expect(invalidJSON.isClosed())

        let invalidUTF8 = try daemon.client()
        try invalidUTF8.send(raw: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D, 0])
        #expect(invalidUTF8.isClosed())

        let oversized = try daemon.client()
        try? oversized.send(raw: Array(repeating: UInt8(ascii: " "), count: 70_000))
        // An error names the limit, then the connection is closed: its stream cannot be resynchronised.
        let tooLarge = try? oversized.receive()
        #expect(tooLarge?.error != nil)
        #expect(oversized.isClosed())

        #expect(try good.ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
    }

    @Test func pipelinedCallsAreAnsweredInOrder() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.send("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.send("io.widgetd.Device.Lock")
        try client.send("io.widgetd.Device.Unlock", ["passcode": "1234"])
        try client.send("io.widgetd.Device.GetStatus")
        for _ in 0..<3 { #expect(try client.receive().error == nil) }
        #expect(try client.receive().parameters["state"] as? String == "unlocked")
    }

    @Test func serviceInterfaceDescribesEveryInterface() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        let info = try client.ok("org.varlink.service.GetInfo")
        #expect(Set(info["interfaces"] as? [String] ?? []).isSuperset(of: [
            "org.varlink.service", "io.widgetd.Device", "io.widgetd.Provider", "io.widgetd.Host",
        ]))
        let host = try client.ok("org.varlink.service.GetInterfaceDescription", ["interface": "io.widgetd.Host"])
        #expect((host["description"] as? String)?.contains("method GetPresentation") == true)
    }

    /// Runs Python's `varlink` package CLI against the daemon and returns its stdout.
    private func pythonVarlink(_ arguments: [String]) throws -> (output: String, error: String) {
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-m", "varlink.cli"] + arguments)
        return (result.output, result.error)
    }

    private static var pythonVarlinkInstalled: Bool {
        (try? ChildProcess.run("/usr/bin/env", ["python3", "-c", "import varlink"]).status) == 0
    }

    @Test(.enabled(if: pythonVarlinkInstalled, "python3 -m pip install varlink"))
    func pythonVarlinkClientParsesTheInterfacesAndCalls() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let address = "unix:\(daemon.socketPath)"
        let info = try pythonVarlink(["info", address])
        #expect(info.output.contains("io.widgetd.Host"), "\(info.error)")
        for interface in ["io.widgetd.Device", "io.widgetd.Provider", "io.widgetd.Host"] {
            // `help` fetches the description and parses it: a real check of the IDL.
            let help = try pythonVarlink(["help", "\(address)/\(interface)"])
            #expect(help.output.contains("interface \(interface)"), "\(interface): \(help.error)")
        }
        let put = try pythonVarlink([
            "call", "\(address)/io.widgetd.Provider.PutTimeline",
            String(decoding: try JSONSerialization.data(withJSONObject: Fixtures.putParameters("com.example.clock/world")), as: UTF8.self),
        ])
        #expect(put.output.contains("generation"), "\(put.error)")
        let shown = try pythonVarlink([
            "call", "\(address)/io.widgetd.Host.GetPresentation", #"{"widget": "com.example.clock/world", "surface": "homeScreen"}"#,
        ])
        #expect(shown.output.contains("\"content\""), "\(shown.error)")
        let missing = try pythonVarlink([
            "call", "\(address)/io.widgetd.Host.GetPresentation", #"{"widget": "org.unknown/x", "surface": "homeScreen"}"#,
        ])
        #expect((missing.output + missing.error).contains("io.widgetd.WidgetNotFound"))
    }
}
