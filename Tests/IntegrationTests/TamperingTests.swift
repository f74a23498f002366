import Foundation
import Glibc
import Testing

/// Promise 2 (SECURITY.md): tampering with the state directory is detected and never
/// served. A damaged timeline is a typed error, logged, shown as a placeholder, and
/// every other widget is still served; a damaged keybag or device key stops the daemon
/// with a clear error instead of serving (or resetting) anything.
@Suite struct TamperingTests {
    static let secret = "TAMPER-SECRET-0451"
    static let intact = "com.example.mail/intact"

    /// Writes `count` same-sized timelines of class `none` plus one untouched witness,
    /// stops the daemon and returns the files by widget id.
    private func prepare(_ daemon: DaemonProcess, count: Int) throws -> [String: URL] {
        try daemon.start()
        let client = try daemon.client()
        for index in 0..<count {
            try client.ok(
                "io.widgetd.Provider.PutTimeline",
                Fixtures.putParameters(Self.widget(index), secret: Self.secret))
        }
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(Self.intact, secret: "witness"))
        daemon.stop()
        return try Self.files(in: daemon)
    }

    static func widget(_ index: Int) -> String { "com.example.clock/t#" + String(format: "%05d", index) }

    /// The timeline files by the widget id in their (cleartext) header.
    static func files(in daemon: DaemonProcess) throws -> [String: URL] {
        let directory = daemon.stateDirectory.appendingPathComponent("timelines")
        var result: [String: URL] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".wtl") {
            let url = directory.appendingPathComponent(name)
            let bytes = [UInt8](try Data(contentsOf: url))
            // magic 4 | version 1 | class 1 | key generation 4 (versions 3, 4) | wrap kind 1 (version 4)
            // | generation 8 | id length 1 | id
            let at = bytes[4] >= 4 ? 19 : bytes[4] == 3 ? 18 : 14
            let length = Int(bytes[at])
            result[String(decoding: bytes[(at + 1)..<(at + 1 + length)], as: UTF8.self)] = url
        }
        return result
    }

    /// Checks that `widget` is refused to its provider and shown as a placeholder
    /// with none of its data, to every surface a host may ask for.
    private func expectNotServed(_ widget: String, client: VarlinkTestClient, _ comment: Comment) throws {
        let read = try client.call("io.widgetd.Provider.GetTimeline", ["widget": widget])
        #expect(read.error != nil, comment)
        let shown = try client.ok("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": "homeScreen"])
        #expect(Fixtures.mode(shown) == "placeholder", comment)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: shown), as: UTF8.self)
        #expect(!text.contains(Self.secret), comment)
    }

    private func expectWitnessServed(_ client: VarlinkTestClient) throws {
        let shown = try client.ok("io.widgetd.Host.GetPresentation", ["widget": Self.intact, "surface": "homeScreen"])
        #expect(Fixtures.mode(shown) == "content")
        #expect(Fixtures.field(shown, "balance")["value"] as? String == "witness")
    }

    @Test func aFlippedBitAtEveryOffsetIsDetectedAndNeverServed() throws {
        let daemon = try DaemonProcess()
        // One widget per flipped offset (all files have the same layout, format version 4,
        // wrapped under the class wrap key: no passcode, every class key held): every byte
        // of the header, the metadata section and the wrapped body key, and every 5th
        // byte of the body, each widget with a different bit.
        let probe = try prepare(daemon, count: 1)
        let probeBytes = [UInt8](try Data(contentsOf: try #require(probe[Self.widget(0)])))
        let size = probeBytes.count
        #expect(probeBytes[4] == 4 && probeBytes[10] == 1)
        // header | metadata block (u32 length, nonce ‖ ct ‖ tag) | wrapped key 72 | body block
        let header = 20 + Self.widget(0).utf8.count
        let metadataEnd = header + 4 + probeBytes[header..<header + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
        let dense = max(min(size, 320), metadataEnd + 72 + 4)
        let offsets = Array(0..<dense) + Array(stride(from: dense, to: size, by: 5)) + [size - 1]
        try FileManager.default.removeItem(at: daemon.stateDirectory)
        let files = try prepare(daemon, count: offsets.count)
        for (index, offset) in offsets.enumerated() {
            let url = try #require(files[Self.widget(index)])
            var bytes = [UInt8](try Data(contentsOf: url))
            #expect(bytes.count == size)
            bytes[offset] ^= UInt8(1) << UInt8(index % 8)
            try Data(bytes).write(to: url)
        }
        try daemon.start()
        let client = try daemon.client()
        for (index, offset) in offsets.enumerated() {
            try expectNotServed(Self.widget(index), client: client, "bit \(index % 8) of byte \(offset) of \(size) flipped")
        }
        try expectWitnessServed(client)
        let listed = try client.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [[String: Any]] ?? []
        // Listing needs only the header and the metadata section: a file damaged there is
        // not listed (a damaged body is found when read, above).
        let names = Set(listed.compactMap { $0["widget"] as? String })
        #expect(names.contains(Self.intact))
        for index in 0..<metadataEnd { #expect(!names.contains(Self.widget(index)), "byte \(index) flipped yet listed") }
        #expect(daemon.log.contains("corrupt") || daemon.log.contains("authentication failed"))
        #expect(daemon.process?.isRunning == true)
    }

    @Test func truncatedCopiedAndEmptiedFilesAreDetected() throws {
        let daemon = try DaemonProcess()
        let files = try prepare(daemon, count: 6)
        let size = try Data(contentsOf: try #require(files[Self.widget(0)])).count
        // Truncated at the header, in the middle, and by one byte.
        for (index, length) in [(0, 10), (1, size / 2), (2, size - 1)] {
            let url = try #require(files[Self.widget(index)])
            try Data(try Data(contentsOf: url).prefix(length)).write(to: url)
        }
        // Widget 3's file replaced by the witness's (a valid file of another widget).
        let witness = try Data(contentsOf: try #require(files[Self.intact]))
        try witness.write(to: try #require(files[Self.widget(3)]))
        // Widgets 4 and 5: a version-4 file whose version byte says 1, or an unknown version.
        for (index, version) in [(4, UInt8(1)), (5, UInt8(9))] {
            let url = try #require(files[Self.widget(index)])
            var bytes = [UInt8](try Data(contentsOf: url))
            #expect(bytes[4] == 4)
            bytes[4] = version
            try Data(bytes).write(to: url)
        }
        try daemon.start()
        let client = try daemon.client()
        for index in 0..<6 { try expectNotServed(Self.widget(index), client: client, "file \(index)") }
        try expectWitnessServed(client)
        #expect(daemon.log.contains("truncated"))
        #expect(daemon.log.contains("another widget"))
        #expect(daemon.log.contains("unsupported format version"))
    }

    /// Issue 16: a single timeline file restored from a backup served its older generation.
    @Test func aTimelineFileRestoredFromABackupIsRefusedToItsProviderAndShownAsAPlaceholder() throws {
        let daemon = try DaemonProcess()
        let files = try prepare(daemon, count: 1)
        let url = try #require(files[Self.widget(0)])
        let old = try Data(contentsOf: url)
        try daemon.start()
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(Self.widget(0), secret: "newer"))
        daemon.stop()
        try old.write(to: url)
        try daemon.start()
        let client = try daemon.client()
        try expectNotServed(Self.widget(0), client: client, "rolled back")
        let read = try client.call("io.widgetd.Provider.GetTimeline", ["widget": Self.widget(0)])
        #expect(read.error == "io.widgetd.StorageFailure")
        try expectWitnessServed(client)
        #expect(daemon.log.contains("rolled back"))
    }

    /// Issue 16: a deleted widget's file restored from a backup brought the widget back.
    @Test func aDeletedWidgetsFileRestoredFromABackupIsIgnored() throws {
        let daemon = try DaemonProcess()
        let files = try prepare(daemon, count: 1)
        let url = try #require(files[Self.widget(0)])
        let old = try Data(contentsOf: url)
        try daemon.start()
        try daemon.client().ok("io.widgetd.Provider.DeleteTimeline", ["widget": Self.widget(0)])
        daemon.stop()
        try old.write(to: url)
        try daemon.start()
        let client = try daemon.client()
        let read = try client.call("io.widgetd.Provider.GetTimeline", ["widget": Self.widget(0)])
        #expect(read.error == "io.widgetd.WidgetNotFound")
        try expectWitnessServed(client)
    }

    /// Issue 16: the keybag from before a passcode was set started the daemon unlocked
    /// and served class-A content written after the passcode was set.
    @Test func aKeybagFromBeforeThePasscodeWasSetServesNothingWrittenAfter() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let keybag = daemon.stateDirectory.appendingPathComponent("keybag")
        let old = try Data(contentsOf: keybag)
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.health/steps", secret: Self.secret))
        daemon.stop()
        try old.write(to: keybag)
        try daemon.start()
        let attacked = try daemon.client()
        try expectNotServed("com.example.health/steps", client: attacked, "keybag restored")
        #expect(daemon.log.contains("keybag does not hold"))
        #expect(daemon.process?.isRunning == true)
    }

    @Test func anEditedKeybagStopsTheDaemonWithAClearErrorAndIsNotReset() throws {
        let daemon = try DaemonProcess()
        _ = try prepare(daemon, count: 1)
        let keybag = daemon.stateDirectory.appendingPathComponent("keybag")
        var bytes = [UInt8](try Data(contentsOf: keybag))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: keybag)
        #expect(throws: DaemonProcess.Failure.self) { try daemon.start() }
        #expect(daemon.process?.isRunning != true)
        #expect(daemon.log.contains("keybag"))
        // The evidence is kept: the daemon did not start over with a fresh keybag.
        #expect([UInt8](try Data(contentsOf: keybag)) == bytes)
    }

    @Test func aSwappedDeviceKeyStopsTheDaemonWithAClearError() throws {
        let daemon = try DaemonProcess()
        _ = try prepare(daemon, count: 1)
        let deviceKey = daemon.stateDirectory.appendingPathComponent("device.key")
        let other = [UInt8]((0..<32).map { _ in UInt8.random(in: 0...255) })
        try Data(other).write(to: deviceKey)
        chmod(deviceKey.path, 0o600)
        #expect(throws: DaemonProcess.Failure.self) { try daemon.start() }
        #expect(daemon.process?.isRunning != true)
        #expect(daemon.log.contains("keybag"))
        #expect([UInt8](try Data(contentsOf: deviceKey)) == other)
    }
}
