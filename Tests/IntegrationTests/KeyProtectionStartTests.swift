import Foundation
import TestSupport
import Testing

/// `KeyProtection=tpm2` (DESIGN §9): the device key exists on disk only as a blob the
/// configured TPM unseals, and a start that cannot have it from that TPM fails, never
/// going on with a software device key.
@Suite struct KeyProtectionStartTests {
    let weather = "com.example.weather/forecast"

    @Test func tpm2KeyProtectionThatCannotBeHonouredStopsTheStart() throws {
        let daemon = try DaemonProcess(daemon: ["KeyProtection=tpm2", "TPM2Device=swtpm:path=/nonexistent/widgetd/sock"])
        let result = try run(daemon)
        #expect(result.status == 1)
        #expect(result.error.contains("KeyProtection=tpm2"), "\(result.error)")
        #expect(result.error.contains("does not fall back"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory.path + "/device.key"))
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2DeviceKeyIsOnlyASealedBlobThatOnlyItsTPMOpens() throws {
        let tpm = try SwtpmServer()
        let daemon = try DaemonProcess(daemon: ["KeyProtection=tpm2", "TPM2Device=\(tpm.tcti)"])
        try daemon.start()
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        // Only what is in force: the key, the attempts and the rollback anchor are the TPM's.
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["protection"] as? [String: String] == ["deviceKey": "tpm2", "attempts": "tpm2", "rollback": "tpm2"])
        #expect(daemon.stop() == 0)
        let state = daemon.stateDirectory.path
        #expect(FileManager.default.fileExists(atPath: state + "/device-key.tpm2"))
        #expect(!FileManager.default.fileExists(atPath: state + "/device.key"))

        // Restarted on the same TPM, it reads what it stored.
        try daemon.start()
        let stored = try daemon.client().ok("io.widgetd.Provider.GetTimeline", ["widget": weather])
        #expect(stored["generation"] as? Int == 1)
        #expect(daemon.stop() == 0)

        // On another TPM the blob is refused: a start error, no new key, nothing changed.
        let other = try SwtpmServer()
        let blob = try Data(contentsOf: URL(fileURLWithPath: state + "/device-key.tpm2"))
        try retarget(daemon, to: other.tcti)
        let elsewhere = try run(daemon)
        #expect(elsewhere.status == 1)
        #expect(elsewhere.error.contains("tpm2 device key cannot be used"), "\(elsewhere.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: state + "/device-key.tpm2")) == blob)
        #expect(!FileManager.default.fileExists(atPath: state + "/device.key"))

        // With its TPM gone it does not start either.
        try retarget(daemon, to: tpm.tcti)
        tpm.kill()
        let gone = try run(daemon)
        #expect(gone.status == 1)
        #expect(gone.error.contains("does not fall back"), "\(gone.error)")
        #expect(!FileManager.default.fileExists(atPath: state + "/device.key"))
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2WipeSealsAFreshKeyAndThePreviousBlobNeverOpensAgain() throws {
        let tpm = try SwtpmServer()
        let daemon = try DaemonProcess(daemon: ["KeyProtection=tpm2", "TPM2Device=\(tpm.tcti)"])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        let blobPath = daemon.stateDirectory.path + "/device-key.tpm2"
        let before = try Data(contentsOf: URL(fileURLWithPath: blobPath))
        try client.ok("io.widgetd.Device.Wipe", ["confirm": "WIPE"])
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": weather]).error == "io.widgetd.WidgetNotFound")
        // The wiped store goes on under a key the TPM sealed afresh, and restarts on it.
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        #expect(daemon.stop() == 0)
        let after = try Data(contentsOf: URL(fileURLWithPath: blobPath))
        #expect(after != before)
        try daemon.start()
        #expect(try daemon.client().ok("io.widgetd.Provider.GetTimeline", ["widget": weather])["generation"] as? Int == 1)
        #expect(daemon.stop() == 0)

        // The blob from before the wipe, put back, opens nothing: the TPM's seed is gone.
        try before.write(to: URL(fileURLWithPath: blobPath))
        let restored = try run(daemon)
        #expect(restored.status == 1)
        #expect(restored.error.contains("tpm2 device key cannot be used"), "\(restored.error)")
    }

    /// Issue 16: a keybag restored from before the failed attempts reset the counter. In
    /// tpm2 mode each wrong passcode is a TPM authorisation failure that its
    /// dictionary-attack protection counts, the NV counter refuses the restored keybag,
    /// and the lockout outlives a restart.
    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2LockoutOutlivesARestoredKeybagAndARestart() throws {
        let tpm = try SwtpmServer()
        // Shrunk so that the lockout comes at the third failure (lockout-auth recovery 0).
        try tpm2Tool(tpm, "tpm2_dictionarylockout", ["-s", "-n", "3", "-t", "1000", "-l", "0"])
        let daemon = try DaemonProcess(daemon: ["KeyProtection=tpm2", "TPM2Device=\(tpm.tcti)"])
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        #expect(daemon.stop() == 0)
        let keybag = URL(fileURLWithPath: daemon.stateDirectory.path + "/keybag")
        let backup = try Data(contentsOf: keybag)

        try daemon.start()
        let client = try daemon.client()
        for attempt in 1...3 {
            let reply = try client.call("io.widgetd.Device.Unlock", ["passcode": "wrong-\(attempt)"])
            #expect(reply.error == "io.widgetd.WrongPasscode", "attempt \(attempt)")
            #expect(reply.parameters["failedAttempts"] as? Int == attempt)
        }
        let locked = try client.call("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(locked.error == "io.widgetd.TryAgainLater")
        #expect(locked.parameters["retryAfter"] as? Double == 1000)
        // widgetd reports each failure itself (unlock_failed); tpm2-tss's own ERROR lines
        // for the same authorisation failures stay out of the journal.
        #expect(!daemon.log.contains("esys:"), "\(daemon.log)")
        #expect(daemon.stop() == 0)
        let current = try Data(contentsOf: keybag)

        // The keybag from before the failures: refused by the NV counter.
        try backup.write(to: keybag)
        let restored = try run(daemon)
        #expect(restored.status == 1)
        #expect(restored.error.contains("is rolled back"), "\(restored.error)")

        // The current one again: the TPM's lockout outlived the restart.
        try current.write(to: keybag)
        try daemon.start()
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["failedAttempts"] as? Int == 3)
        #expect((status["protection"] as? [String: String])?["attempts"] == "tpm2")
        let again = try daemon.client().call("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(again.error == "io.widgetd.TryAgainLater")
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] as? String == "beforeFirstUnlock")
        #expect(daemon.stop() == 0)
        let counted = try tpm2Tool(tpm, "tpm2_getcap", ["properties-variable"])
        #expect(counted.contains("TPM2_PT_LOCKOUT_COUNTER: 0x3"), "\(counted)")
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2StartRefusesALedgerRestoredFromBeforeTheLastStop() throws {
        let tpm = try SwtpmServer()
        let daemon = try DaemonProcess(daemon: ["KeyProtection=tpm2", "TPM2Device=\(tpm.tcti)"])
        let catalog = URL(fileURLWithPath: daemon.stateDirectory.path + "/catalog")
        try daemon.start()
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        // An orderly stop folds the journal and anchors the catalog to the TPM's counter.
        #expect(daemon.stop() == 0)
        let firstStop = try Data(contentsOf: catalog)
        try daemon.start()
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        #expect(daemon.stop() == 0)
        try firstStop.write(to: catalog)
        let restored = try run(daemon)
        #expect(restored.status == 1)
        #expect(restored.error.contains("is rolled back"), "\(restored.error)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2LostLedgerIsRebuiltAndAnchoredByStartOverOnceThePasscodeProvesTheKeybag() throws {
        let tpm = try SwtpmServer()
        let daemon = try DaemonProcess(daemon: ["KeyProtection=tpm2", "TPM2Device=\(tpm.tcti)"])
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        for _ in 0..<2 { try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather)) }
        #expect(daemon.stop() == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory.path) where name.hasPrefix("catalog") {
            try FileManager.default.removeItem(atPath: daemon.stateDirectory.path + "/" + name)
        }
        let refused = try run(daemon)
        #expect(refused.status == 1)
        #expect(refused.error.contains("widgetd --start-over"), "\(refused.error)")

        try daemon.start(extraArguments: ["--start-over"])
        let client = try daemon.client()
        #expect(try client.call("io.widgetd.Device.Unlock", ["passcode": "0000"]).error == "io.widgetd.WrongPasscode")
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": weather]).error == "io.widgetd.ProtectedDataUnavailable")
        try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(try client.ok("io.widgetd.Provider.GetTimeline", ["widget": weather])["generation"] as? Int == 2)
        #expect(daemon.stop() == 0)
        // Anchored with the keybag: a plain start passes the counter's check.
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(try daemon.client().ok("io.widgetd.Provider.GetTimeline", ["widget": weather])["generation"] as? Int == 2)
    }

    @Test func softwareKeyProtectionSaysTheKeyIsAFile() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["protection"] as? [String: String] == ["deviceKey": "file", "attempts": "software", "rollback": "catalog"])
    }

    @Test func softwareKeyProtectionSaysTheKeyIsACredentialWhenSystemdPassesOne() throws {
        let daemon = try DaemonProcess()
        let credentials = daemon.root.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: false)
        let key = credentials.appendingPathComponent("device-key")
        try Data((0..<32).map { UInt8($0) }).write(to: key)
        chmod(key.path, 0o600)
        try daemon.start(environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["protection"] as? [String: String] == ["deviceKey": "credential", "attempts": "software", "rollback": "catalog"])
        #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory.path + "/device.key"))
    }

    /// Runs one of tpm2-tools on `tpm` (while no daemon holds it: swtpm serves one connection).
    @discardableResult
    private func tpm2Tool(_ tpm: SwtpmServer, _ tool: String, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run("/usr/bin/\(tool)", arguments, environment: ["TPM2TOOLS_TCTI": tpm.tcti])
        #expect(result.status == 0, "\(tool): \(result.error)")
        return result.output
    }

    /// Runs the daemon to its (failed) end.
    /// Runs the daemon to its end: these starts must fail. Under `timeout`, so that a
    /// start that wrongly succeeds fails the test (status 124) instead of hanging it.
    private func run(_ daemon: DaemonProcess) throws -> ProcessRunner.Result {
        try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/timeout"),
            ["60", DaemonProcess.binary.path, "--config", daemon.configFile.path, "--state-directory",
             daemon.stateDirectory.path, "--socket", daemon.socketPath])
    }

    /// Points the configuration's `TPM2Device=` at `tcti`.
    private func retarget(_ daemon: DaemonProcess, to tcti: String) throws {
        let text = try String(contentsOf: daemon.configFile, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasPrefix("TPM2Device=") ? "TPM2Device=\(tcti)" : String($0)
        }
        try lines.joined(separator: "\n").write(to: daemon.configFile, atomically: true, encoding: .utf8)
    }
}
