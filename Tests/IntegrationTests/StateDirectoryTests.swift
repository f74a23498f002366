import Foundation
import Glibc
import Testing

/// Issue 13, defects 3, 4 and 5, end to end: what is planted in or removed from the
/// state directory between two runs never hangs the daemon, never resets the store
/// silently, and never opens what the settings closed.
@Suite struct StateDirectoryTests {
    /// Starts the daemon, writes one class-`none` timeline per widget, and stops it.
    private func prepare(_ daemon: DaemonProcess, widgets: [String]) throws {
        try daemon.start()
        let client = try daemon.client()
        for widget in widgets { try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(widget)) }
        daemon.stop()
    }

    private var timelinesOf: (DaemonProcess) -> String { { $0.stateDirectory.appendingPathComponent("timelines").path } }

    @Test func aFIFOAndASymlinkPlantedInTimelinesNeitherHangNorHideTheOtherWidgets() throws {
        let daemon = try DaemonProcess()
        let widgets = ["com.example.clock/a", "com.example.clock/b"]
        try prepare(daemon, widgets: widgets)
        let timelines = timelinesOf(daemon)
        let fifo = "\(timelines)/\(String(repeating: "ab", count: 16)).wtl"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(symlink("/etc/passwd", "\(timelines)/\(String(repeating: "cd", count: 16)).wtl") == 0)
        // A daemon blocked in open() would never see SIGTERM: kill it if it hung.
        defer { daemon.kill9() }
        try daemon.start()
        let client = try VarlinkTestClient(path: daemon.socketPath, timeout: 10)
        let listed = try client.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["widget"] as? String }.sorted() == widgets)
        #expect(try client.ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
        let shown = try client.ok("io.widgetd.Host.GetPresentation", ["widget": widgets[0], "surface": "homeScreen"])
        #expect(Fixtures.mode(shown) == "content")
        #expect(daemon.log.contains(fifo), "the refused FIFO is logged")
    }

    @Test func aMissingKeybagStopsTheDaemonAndStartingOverIsExplicit() throws {
        let daemon = try DaemonProcess()
        try prepare(daemon, widgets: ["com.example.clock/kept"])
        let keybag = daemon.stateDirectory.appendingPathComponent("keybag").path
        #expect(unlink(keybag) == 0)
        let timelines = timelinesOf(daemon)
        let files = try FileManager.default.contentsOfDirectory(atPath: timelines).sorted()
        #expect(!files.isEmpty)
        #expect(throws: DaemonProcess.Failure.self) { try daemon.start() }
        #expect(daemon.process?.isRunning != true)
        #expect(daemon.log.contains(keybag), "the start error names the missing keybag")
        #expect(!FileManager.default.fileExists(atPath: keybag), "no fresh keybag was made")
        #expect(try FileManager.default.contentsOfDirectory(atPath: timelines).sorted() == files)

        try daemon.start(extraArguments: ["--start-over"])
        #expect(FileManager.default.fileExists(atPath: keybag))
        #expect(daemon.log.contains("started_over"))
        let client = try daemon.client()
        #expect((try client.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [Any])?.isEmpty == true)
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.clock/new"))
    }

    @Test func aLostLedgerIsRebuiltByStartOverOnlyOnceThePasscodeProvesTheKeybag() throws {
        let daemon = try DaemonProcess()
        let kept = "com.example.clock/kept"
        let damaged = "com.example.clock/damaged"
        let timelines = timelinesOf(daemon)
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(damaged))
        daemon.stop()
        let damagedFile = try #require(try FileManager.default.contentsOfDirectory(atPath: timelines).first)
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        for _ in 0..<2 { try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(kept)) }
        daemon.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: timelines).sorted()
        for name in try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory.path) where name.hasPrefix("catalog") {
            #expect(unlink(daemon.stateDirectory.appendingPathComponent(name).path) == 0)
        }
        // Damaged in its body's tag: its header and placeholder still verify.
        let damagedURL = URL(fileURLWithPath: "\(timelines)/\(damagedFile)")
        var bytes = [UInt8](try Data(contentsOf: damagedURL))
        bytes[bytes.count - 1] ^= 1
        try Data(bytes).write(to: damagedURL)

        #expect(throws: DaemonProcess.Failure.self) { try daemon.start() }
        #expect(daemon.log.contains("widgetd --start-over"), "the start error names the way forward")
        #expect(try FileManager.default.contentsOfDirectory(atPath: timelines).sorted() == files)

        try daemon.start(extraArguments: ["--start-over"])
        let client = try daemon.client()
        // Before the passcode: placeholders, no timeline, no write, no catalog saved.
        let wrong = try client.call("io.widgetd.Device.Unlock", ["passcode": "0000"])
        #expect(wrong.error == "io.widgetd.WrongPasscode", "\(wrong)")
        let shown = try client.ok("io.widgetd.Host.GetPresentation", ["widget": kept, "surface": "homeScreen"])
        #expect(Fixtures.mode(shown) == "placeholder")
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": kept]).error == "io.widgetd.ProtectedDataUnavailable")
        #expect(try client.call("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.clock/new")).error != nil)
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory.appendingPathComponent("catalog").path))

        try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(try client.ok("io.widgetd.Provider.GetTimeline", ["widget": kept])["generation"] as? Int == 2)
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": damaged]).error == "io.widgetd.WidgetNotFound")
        #expect(daemon.log.contains("catalog_rebuilt"))
        #expect(daemon.log.contains(damagedFile), "the file left out is reported")
        daemon.stop()
        // Saved: a plain start serves it.
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(try daemon.client().ok("io.widgetd.Provider.GetTimeline", ["widget": kept])["generation"] as? Int == 2)
    }

    /// Settings the user closed, then removed or damaged between two runs.
    @Test(arguments: ["removed", "corrupted"])
    func unreadableSettingsFailClosedUntilAnAdministratorSetsThem(damage: String) throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.client().ok(
            "io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false, "hideSensitiveComplications": "all"])
        daemon.stop()
        let path = daemon.stateDirectory.appendingPathComponent("settings").path
        if damage == "removed" {
            #expect(unlink(path) == 0)
        } else {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[bytes.count / 2] ^= 0x20
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        try daemon.start()
        let client = try daemon.client()
        let settings = try client.ok("io.widgetd.Device.GetSettings")["settings"] as? [String: Any] ?? [:]
        #expect(settings["lockScreenWidgetsAccess"] as? Bool == false)
        #expect(settings["hideSensitiveComplications"] as? String == "all")
        let status = try client.ok("io.widgetd.Device.GetStatus")
        #expect(status["warnings"] as? [String] == ["settingsUnreadable"])
        #expect(daemon.log.contains("settings_unreadable"))
        // An administrator's SetSettings ends it.
        try client.ok("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": true])
        #expect(try client.ok("io.widgetd.Device.GetStatus")["warnings"] == nil)
    }

    @Test func aFreshStateDirectoryStartsWithTheDefaultSettingsAndNoWarning() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let settings = try daemon.client().ok("io.widgetd.Device.GetSettings")["settings"] as? [String: Any] ?? [:]
        #expect(settings["lockScreenWidgetsAccess"] as? Bool == true)
        #expect(settings["hideSensitiveComplications"] as? String == "off")
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["warnings"] == nil)
        // Still so after a restart: the fresh store wrote its defaults.
        daemon.stop()
        try daemon.start()
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["warnings"] == nil)
    }

    @Test func wipeResetsTheSettingsInMemoryToAFreshStoresDefaults() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.ok(
            "io.widgetd.Device.SetSettings",
            ["lockScreenWidgetsAccess": false, "hiddenLockScreenWidgets": ["com.example.clock/b"],
             "hideSensitiveComplications": "selected", "hiddenComplications": ["com.example.clock/a"]])
        try client.ok("io.widgetd.Device.Wipe", ["confirm": "WIPE"])
        let fresh: [String: Any] = [
            "lockScreenWidgetsAccess": true, "hiddenLockScreenWidgets": [String](), "hideSensitiveComplications": "off",
            "hiddenComplications": [String](),
        ]
        func same(_ settings: Any?) -> Bool { NSDictionary(dictionary: settings as? [String: Any] ?? [:]).isEqual(to: fresh) }
        #expect(same(try client.ok("io.widgetd.Device.GetSettings")["settings"]))
        #expect(same(try client.ok("io.widgetd.Device.GetStatus")["settings"]))
        // And after a restart: the wiped store is a fresh one, not one whose settings went missing.
        daemon.stop()
        try daemon.start()
        #expect(same(try daemon.client().ok("io.widgetd.Device.GetSettings")["settings"]))
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["warnings"] == nil)
    }
}
