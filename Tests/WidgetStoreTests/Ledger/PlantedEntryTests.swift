import Foundation
import Glibc
import Testing
@testable import WidgetStore

/// Issue 13, defect 3: what someone with write access to the state directory plants
/// there (a FIFO, a symbolic link, a file of another user, a group-writable directory)
/// is refused with a typed error, never followed, never blocked on, and a bad entry in
/// `timelines/` never hides the other widgets.
@Suite struct PlantedEntries {
    /// Runs `body` on another thread; if it has not returned within `seconds`, records
    /// an issue, opens `fifo` for writing (which releases a reader blocked in `open`)
    /// and waits for it. Returns what `body` returned, or `nil` when it hung.
    private func withoutHanging<T: Sendable>(
        unblocking fifo: String, seconds: Double = 5, _ body: @escaping @Sendable () throws -> T,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result<T, any Error>? {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Thread.detachNewThread {
            box.result = Result { try body() }
            done.signal()
        }
        if done.wait(timeout: .now() + seconds) == .success { return box.result }
        Issue.record("blocked on the FIFO \(fifo)", sourceLocation: sourceLocation)
        // A writer releases a reader blocked in open(); writing and closing releases a
        // blocked read. The reader may be gone by the write: no SIGPIPE for the suite.
        signal(SIGPIPE, SIG_IGN)
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 {
            _ = write(fd, "x", 1)
            close(fd)
        }
        done.wait()
        return nil
    }

    private final class ResultBox<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }

    /// A store with one widget per class, folded into its files and closed.
    private func preparedFixture() throws -> Fixture {
        let f = Fixture()
        let store = try f.open()
        try putOnePerClass(store)
        try store.foldJournal()
        return f
    }

    /// A name the store could have made (32 hex digits, `.wtl`) that no widget has.
    private let plantedName = String(repeating: "ab", count: 16) + ".wtl"

    @Test func fifoInTimelinesIsSkippedNotOpened() throws {
        let f = try preparedFixture()
        let fifo = "\(f.timelines)/\(plantedName)"
        #expect(mkfifo(fifo, 0o600) == 0)
        let listed = withoutHanging(unblocking: fifo) { () throws -> [String] in
            let store = try f.open()
            return try store.listTimelines().map(\.widget.description)
        }
        #expect(try listed?.get() == classOf.keys.map(\.description).sorted())
    }

    @Test func symlinkInTimelinesIsSkippedAndDoesNotFailTheListing() throws {
        let f = try preparedFixture()
        // A link to another widget's valid file: followed, it would even verify as a name mismatch.
        let target = try f.timelineFiles()[0]
        #expect(symlink(target, "\(f.timelines)/\(plantedName)") == 0)
        let store = try f.open()
        #expect(try store.listTimelines().map(\.widget.description) == classOf.keys.map(\.description).sorted())
    }

    @Test(.enabled(if: getuid() == 0, "giving a file to another user (chown to uid 4242) needs root"))
    func timelineFileOfAnotherOwnerIsSkipped() throws {
        let f = try preparedFixture()
        let files = try f.timelineFiles()
        #expect(chown(files[0], 4242, 4242) == 0)
        let store = try f.open()
        #expect(try store.listTimelines().count == classOf.count - 1)
    }

    @Test func deviceKeyThroughASymlinkIsRefused() throws {
        let f = try preparedFixture()
        let key = "\(f.state)/device.key"
        let elsewhere = "\(f.root)/device.key"
        #expect(rename(key, elsewhere) == 0)
        #expect(symlink(elsewhere, key) == 0)
        #expect(throws: StoreError.self) { try f.open() }
    }

    @Test(arguments: ["keybag", "settings", "journal", "device.key", "catalog"])
    func fifoInPlaceOfAStateFileIsRefusedWithoutBlocking(name: String) throws {
        let f = try preparedFixture()
        let path = "\(f.state)/\(name)"
        #expect(unlink(path) == 0 || name == "settings")
        #expect(mkfifo(path, 0o600) == 0)
        let outcome = withoutHanging(unblocking: path) { () throws -> Bool in
            let store = try f.open()
            _ = try store.loadSettings()
            return true
        }
        guard let outcome else { return }
        #expect(throws: StoreError.self) { try outcome.get() }
    }

    @Test(
        .enabled(if: getuid() == 0, "giving a file to another user (chown to uid 4242) needs root"),
        arguments: ["keybag", "settings", "catalog"])
    func stateFileOfAnotherOwnerIsRefused(name: String) throws {
        let f = try preparedFixture()
        let path = "\(f.state)/\(name)"
        if name == "settings" { try f.open().saveSettings([1]) }
        #expect(chown(path, 4242, 4242) == 0)
        #expect(throws: StoreError.self) {
            let store = try f.open()
            _ = try store.loadSettings()
        }
    }

    @Test(arguments: ["state", "timelines"])
    func symlinkedDirectoryIsRefusedAtOpen(which: String) throws {
        let f = try preparedFixture()
        let path = which == "state" ? f.state : f.timelines
        let real = "\(f.root)/real-\(which)"
        #expect(rename(path, real) == 0)
        #expect(symlink(real, path) == 0)
        #expect(throws: StoreError.self) { try f.open() }
        if which == "state" { #expect(throws: StoreError.self) { try StateDirectoryLock(stateDirectory: f.state) } }
    }

    @Test(arguments: [("state", 0o770), ("state", 0o702), ("timelines", 0o720), ("timelines", 0o707)])
    func directoryWritableByGroupOrOthersIsRefusedAtOpen(which: String, mode: Int) throws {
        let f = try preparedFixture()
        let path = which == "state" ? f.state : f.timelines
        #expect(chmod(path, mode_t(mode)) == 0)
        #expect(throws: StoreError.self) { try f.open() }
    }
}
