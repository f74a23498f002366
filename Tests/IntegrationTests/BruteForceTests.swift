import Foundation
import Glibc
import Testing

/// Promise 5 (SECURITY.md): brute force over the socket is bounded. The daemon's clock
/// is moved with libfaketime (restarting it with a later `FAKETIME` offset, by
/// `SIGKILL`), so the whole delay schedule is walked without waiting an hour.
@Suite struct BruteForceTests {
    /// Apple's schedule (DESIGN §3): the delay after the nth failed attempt, in seconds.
    static func delay(after failures: Int) -> Double {
        switch failures {
        case ..<5: 0
        case 5: 60
        case 6: 300
        case 7, 8: 900
        default: 3600
        }
    }

    @Test(.enabled(if: FakeClock.installed, "needs libfaketime (apt-get install libfaketime)"))
    func theDelayScheduleHoldsAcrossSigkills() throws {
        let daemon = try DaemonProcess()
        try daemon.start(launcher: FakeClock.launcher(offset: 0))
        try daemon.client().ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        var now = 0.0
        for attempt in 1...10 {
            // Every attempt comes from a freshly started daemon: a crash resets nothing.
            daemon.kill9()
            let wait = Self.delay(after: attempt - 1)
            if wait > 0 {
                // Just before the delay ends, every passcode (the right one too) is refused.
                try daemon.start(launcher: FakeClock.launcher(offset: now + wait - 5))
                let early = try daemon.client().call("io.widgetd.Device.Unlock", ["passcode": "1234"])
                #expect(early.error == "io.widgetd.TryAgainLater", "attempt \(attempt)")
                let retry = early.parameters["retryAfter"] as? Double ?? 0
                #expect(retry > 0 && retry <= 10, "attempt \(attempt): retryAfter \(retry)")
                let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
                #expect(status["failedAttempts"] as? Int == attempt - 1)
                daemon.kill9()
                now += wait + 1
            }
            try daemon.start(launcher: FakeClock.launcher(offset: now))
            let reply = try daemon.client().call("io.widgetd.Device.Unlock", ["passcode": "wrong-\(attempt)"])
            #expect(reply.error == "io.widgetd.WrongPasscode", "attempt \(attempt)")
            #expect(reply.parameters["failedAttempts"] as? Int == attempt)
            let retry = reply.parameters["retryAfter"] as? Double
            if Self.delay(after: attempt) == 0 {
                #expect(retry == nil, "attempt \(attempt)")
            } else {
                let expected = Self.delay(after: attempt)
                #expect(retry.map { $0 > expected - 30 && $0 <= expected } == true, "attempt \(attempt): \(String(describing: retry))")
            }
        }
        // The right passcode still works once the last delay has passed.
        daemon.kill9()
        try daemon.start(launcher: FakeClock.launcher(offset: now + 3601))
        try daemon.client().ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["failedAttempts"] as? Int == 0)
    }

    @Test func wipeAfterFailedAttemptsErasesAtTheLimitEvenAcrossSigkill() throws {
        let daemon = try DaemonProcess(daemon: ["WipeAfterFailedAttempts=3"])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.clock/world"))
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.health/rings"))
        for attempt in 1...2 {
            daemon.kill9()
            try daemon.start()
            let reply = try daemon.client().call("io.widgetd.Device.Unlock", ["passcode": "wrong-\(attempt)"])
            #expect(reply.error == "io.widgetd.WrongPasscode")
            #expect(reply.parameters["failedAttempts"] as? Int == attempt)
            #expect(FileManager.default.fileExists(atPath: daemon.stateDirectory.appendingPathComponent("keybag").path))
        }
        daemon.kill9()
        try daemon.start()
        let deviceKey = daemon.stateDirectory.appendingPathComponent("device.key")
        let oldKey = try Data(contentsOf: deviceKey)
        let last = try daemon.client().call("io.widgetd.Device.Unlock", ["passcode": "wrong-3"])
        #expect(last.error == "io.widgetd.Wiped")
        // Crypto-erased: the device key is a new one, no passcode, no timeline listed.
        daemon.kill9()
        try daemon.start()
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["passcodeSet"] as? Bool == false)
        #expect((try daemon.client().ok("io.widgetd.Host.ListWidgets")["widgets"] as? [Any])?.isEmpty == true)
        #expect((try? Data(contentsOf: deviceKey)) != oldKey)
    }

    @Test func aWrongPasscodeNeverAnswersFasterThanTheKDF() throws {
        // The interactive cost (about 100 ms) makes the KDF dominate every unlock.
        let daemon = try DaemonProcess(daemon: ["PasscodeKDF=interactive"])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        func timed(_ passcode: String) throws -> (Double, String?) {
            let start = DispatchTime.now().uptimeNanoseconds
            let reply = try client.call("io.widgetd.Device.Unlock", ["passcode": passcode])
            return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, reply.error)
        }
        var right: [Double] = []
        for _ in 0..<3 {
            try client.ok("io.widgetd.Device.Lock")
            let (seconds, error) = try timed("1234")
            #expect(error == nil)
            right.append(seconds)
        }
        try client.ok("io.widgetd.Device.Lock")
        // New wrong passcodes, a repeated one (not counted again), and an empty one.
        var wrong: [Double] = []
        for passcode in ["0000", "1111", "1111", "", "12345"] {
            let (seconds, error) = try timed(passcode)
            #expect(error == "io.widgetd.WrongPasscode", "\(passcode)")
            wrong.append(seconds)
        }
        let kdf = right.min()!
        print(String(format: "BruteForceTests: right passcode %.1f ms (min), wrong passcodes %.1f ms (min)", kdf * 1e3, wrong.min()! * 1e3))
        #expect(kdf > 0.03, "the interactive KDF costs tens of milliseconds: \(right)")
        // Generous under load (a right unlock also releases keys); a skipped KDF answers in ~1 ms.
        #expect(wrong.min()! > 0.02 && wrong.min()! > 0.3 * kdf, "a wrong passcode answered in \(wrong.min()!) s; the KDF takes \(kdf) s")
    }
}
