import Foundation
import Glibc

/// The daemon run with its wall clock moved by libfaketime, its monotonic clock (timers,
/// the watchdog, class A's grace) left real.
///
/// The preload goes through a shell that is itself preloaded and then execs the daemon:
/// a program exec'd straight into the preload sees an empty `CommandLine.arguments`
/// (Swift 6.3.1 with libfaketime 0.9.10), and the daemon would lose its options.
enum FakeClock {
    /// The library that fakes the clock of a process whose threads all read it.
    static let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
    static var installed: Bool { FileManager.default.fileExists(atPath: library) }

    /// A launcher (`DaemonProcess.start(launcher:)`) with the wall clock `offset` seconds ahead.
    static func launcher(offset: Double) -> [String] {
        launcher(["FAKETIME=" + String(format: "%+.0f", offset)])
    }

    /// A launcher with the wall clock at the offset written in `file`, re-read on every call.
    static func launcher(readingOffsetFrom file: URL) -> [String] {
        launcher(["FAKETIME_TIMESTAMP_FILE=\(file.path)", "FAKETIME_NO_CACHE=1"])
    }

    private static func launcher(_ settings: [String]) -> [String] {
        ["/usr/bin/env", "LD_PRELOAD=\(library)"] + settings
            + ["FAKETIME_DONT_FAKE_MONOTONIC=1", "/bin/sh", "-c", "exec \"$@\"", "sh"]
    }

    /// Whether `launcher` preloads libfaketime.
    static func isUsed(by launcher: [String]) -> Bool {
        launcher.contains { $0.hasPrefix("LD_PRELOAD=") && $0.contains("/faketime/") }
    }

    /// Removes the shared memory and semaphore that libfaketime made for the process
    /// `pid`, once it has exited. The preloaded shell creates them under its pid, which
    /// the daemon keeps by exec; libfaketime removes them only in the creator's
    /// destructor, which an exec never runs, so each start would leave two files in
    /// /dev/shm behind.
    static func removeSharedMemory(of pid: pid_t) {
        unlink("/dev/shm/faketime_shm_\(pid)")
        unlink("/dev/shm/sem.faketime_sem_\(pid)")
    }
}
