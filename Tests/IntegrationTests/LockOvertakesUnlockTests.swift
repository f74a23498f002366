import Foundation
import Glibc
import Testing

/// A Lock wins over every passcode operation still in flight or queued (issue 13,
/// defect 1), over the socket against the real daemon.
///
/// Deterministic without sleeping: the passcode costs Argon2id `moderate` (≈ 0.7 s a
/// derivation here), and each call is known to have been read before the next is sent
/// by a round trip on another connection (the loop handles every socket that `epoll`
/// reports ready in one batch, and a call sent earlier is ready by then). The test
/// checks that the Lock was answered before the running Unlock, so a machine too fast
/// for the race fails loudly instead of passing for nothing.
@Suite struct LockOvertakesUnlockTests {
    @Test func aLockWinsOverTheUnlockBeingDerivedAndTheOnesQueuedBehindIt() throws {
        let daemon = try DaemonProcess(daemon: ["PasscodeKDF=moderate"])
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok("io.widgetd.Device.Lock")

        let running = try daemon.client()
        try running.send("io.widgetd.Device.Unlock", ["passcode": "1234"])
        try control.ok("io.widgetd.Device.GetStatus")
        let queuedWrong = try daemon.client()
        try queuedWrong.send("io.widgetd.Device.Unlock", ["passcode": "0000"])
        try control.ok("io.widgetd.Device.GetStatus")
        let queuedRight = try daemon.client()
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
        let held = (status["classes"] as? [[String: Any]] ?? []).filter { $0["keyAvailable"] as? Bool == true }
            .compactMap { $0["class"] as? String }
        #expect(!held.contains("completeUnlessOpen"))
        #expect(daemon.log.contains("unlock_interrupted"))
    }
}

extension VarlinkTestClient {
    /// Whether a reply has arrived and not been read yet (nothing received on this
    /// connection before, so nothing is buffered on the client's side).
    func hasReplyWaiting() -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }
}
