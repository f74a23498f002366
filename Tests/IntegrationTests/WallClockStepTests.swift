import Foundation
import Glibc
import Testing

/// DESIGN §8 against the real daemon: class A's grace is a duration, on the monotonic
/// clock. The daemon's wall clock alone is stepped while it runs, with libfaketime
/// (`FAKETIME_TIMESTAMP_FILE`, re-read on every call; `FAKETIME_DONT_FAKE_MONOTONIC=1`),
/// as an NTP correction steps it.
@Suite struct WallClockStepTests {
    static func classAHeld(_ daemon: DaemonProcess) throws -> Bool {
        let classes = try daemon.client().ok("io.widgetd.Device.GetStatus")["classes"] as? [[String: Any]] ?? []
        return classes.contains { $0["class"] as? String == "complete" && $0["keyAvailable"] as? Bool == true }
    }

    @Test(.enabled(if: FakeClock.installed, "needs libfaketime (apt-get install libfaketime)"))
    func classAIsPurgedAfterItsGraceWhenTheWallClockStepsBackAnHour() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=3"])
        let offset = daemon.root.appendingPathComponent("faketime")
        try "+0\n".write(to: offset, atomically: true, encoding: .utf8)
        try daemon.start(launcher: FakeClock.launcher(readingOffsetFrom: offset))
        try daemon.client().ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try daemon.client().ok("io.widgetd.Device.Lock")
        let locked = Date()
        #expect(try Self.classAHeld(daemon), "within the grace")
        try "-3600\n".write(to: offset, atomically: true, encoding: .utf8)
        // Gone by the end of the grace (with a margin for a loaded machine), not an hour later.
        while try Self.classAHeld(daemon), Date().timeIntervalSince(locked) < 15 { usleep(100_000) }
        let purgedAfter = Date().timeIntervalSince(locked)
        #expect(try !Self.classAHeld(daemon), "class A still held \(purgedAfter) s after the lock")
        #expect(purgedAfter >= 2.9, "class A purged \(purgedAfter) s after the lock, before its grace ended")
        // libfaketime's shared memory, made under the daemon's pid, goes with it.
        let pid = try #require(daemon.process).processIdentifier
        #expect(FileManager.default.fileExists(atPath: "/dev/shm/faketime_shm_\(pid)"))
        daemon.stop()
        #expect(!FileManager.default.fileExists(atPath: "/dev/shm/faketime_shm_\(pid)"))
        #expect(!FileManager.default.fileExists(atPath: "/dev/shm/sem.faketime_sem_\(pid)"))
    }
}
