import Foundation
import Glibc
import Testing

/// A Lock wins over every passcode operation still in flight or queued (issue 13,
/// defect 1), over the socket against the real daemon.
///
/// Deterministic without sleeping: the passcode costs Argon2id `moderate` (≈ 0.7 s a
/// derivation here), and each call is known to have been read before the next is sent
/// by a round trip on another connection (the loop handles every socket that `epoll`
/// reports ready in one batch, and a call sent earlier is ready by then). Each
/// connection first makes a round trip of its own, so that the daemon has accepted it:
/// data on a connection not yet accepted is seen only a turn later. The test checks
/// that the Lock was answered before the running Unlock, so a machine too fast for
/// the race fails loudly instead of passing for nothing.
@Suite struct LockOvertakesUnlockTests {
    @Test func aLockWinsOverTheUnlockBeingDerivedAndTheOnesQueuedBehindIt() throws {
        let daemon = try DaemonProcess(daemon: ["PasscodeKDF=moderate"])
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok("io.widgetd.Device.Lock")

        let running = try Self.accepted(daemon)
        try running.send("io.widgetd.Device.Unlock", ["passcode": "1234"])
        try control.ok("io.widgetd.Device.GetStatus")
        let queuedWrong = try Self.accepted(daemon)
        try queuedWrong.send("io.widgetd.Device.Unlock", ["passcode": "0000"])
        try control.ok("io.widgetd.Device.GetStatus")
        let queuedRight = try Self.accepted(daemon)
        try queuedRight.send("io.widgetd.Device.Unlock", ["passcode": "1234"])
        try control.ok("io.widgetd.Device.GetStatus")

        try control.ok("io.widgetd.Device.Lock")
        #expect(!running.hasReplyWaiting(), "the Unlock was answered before the Lock: the race was not run")

        let interrupted = try running.receive()
        #expect(interrupted.error == "io.widgetd.UnlockInterrupted")
        // A wrong passcode still counts, or a Lock would make guessing free.
        let wrong = try queuedWrong.receive()
        #expect(wrong.error == "io.widgetd.WrongPasscode")
        #expect(wrong.parameters["failedAttempts"] as? Int == 1)
        #expect(try queuedRight.receive().error == "io.widgetd.UnlockInterrupted")

        let status = try control.ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "locked")
        #expect(status["failedAttempts"] as? Int == 1)
        #expect(!Self.heldClasses(status).contains("completeUnlessOpen"))
        #expect(daemon.log.contains("unlock_interrupted"))
    }

    /// A SetPasscode overtaken by a Lock is applied (it was authorised), as if it had
    /// finished just before the Lock: the device stays locked, B is purged at once and
    /// A after ClassAGraceSec, and hosts are shown what a locked device with a passcode shows.
    @Test func aPasscodeSetOvertakenByALockEndsLockedAndPurgedAsTheLockPrescribes() throws {
        let daemon = try DaemonProcess(daemon: ["PasscodeKDF=moderate", "ClassAGraceSec=1"])
        try daemon.start()
        let control = try daemon.client()
        let mail = "com.example.mail/inbox"
        try control.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(mail))
        let watcher = try daemon.client()
        try watcher.send("io.widgetd.Host.Watch", ["widget": mail, "surface": "homeScreen"], more: true)
        #expect(Fixtures.mode(try watcher.receive().parameters) == "content")

        let setter = try Self.accepted(daemon)
        try setter.send("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok("io.widgetd.Device.GetStatus")
        try control.ok("io.widgetd.Device.Lock")
        #expect(!setter.hasReplyWaiting(), "the SetPasscode was answered before the Lock: the race was not run")
        let set = try setter.receive()
        #expect(set.error == nil)

        let status = try control.ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "locked")
        #expect(status["passcodeSet"] as? Bool == true)
        #expect(!Self.heldClasses(status).contains("completeUnlessOpen"))
        // Class B with a passcode, locked: the placeholder, pushed to the watch.
        let pushed = watcher.receive(within: 5)
        #expect(pushed.map { Fixtures.mode($0.parameters) } == "placeholder", "the watch was not told")
        // Class A is purged one second after the lock, by the daemon's own timer.
        var purged = false
        for _ in 0..<50 where !purged {
            purged = !Self.heldClasses(try control.ok("io.widgetd.Device.GetStatus")).contains("complete")
            if !purged { usleep(100_000) }
        }
        #expect(purged, "class A was still held 5 s after the lock")
        #expect(try control.call("io.widgetd.Device.Unlock", ["passcode": "1234"]).error == nil)
    }

    /// A new connection the daemon has accepted and answered once.
    private static func accepted(_ daemon: DaemonProcess) throws -> VarlinkTestClient {
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.GetStatus")
        return client
    }

    private static func heldClasses(_ status: [String: Any]) -> [String] {
        (status["classes"] as? [[String: Any]] ?? []).filter { $0["keyAvailable"] as? Bool == true }
            .compactMap { $0["class"] as? String }
    }
}

extension VarlinkTestClient {
    /// Whether a reply has arrived and not been read yet. Only for a connection whose
    /// replies so far were each awaited before the next call, so that the client holds
    /// none buffered.
    func hasReplyWaiting() -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }
}
