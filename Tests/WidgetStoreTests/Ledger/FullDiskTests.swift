import Foundation
import Glibc
import Testing
import WidgetModel
@testable import StoreLedger
@testable import WidgetStore

/// A full file system, real (a small tmpfs mounted on the state directory, as root): a
/// start that cannot fold the journal keeps it and serves from it, and every
/// acknowledged write reads back at its generation once there is room again; an
/// operation that answers an error has changed nothing; the space reserve lets a
/// delete through.
@Suite(.serialized) struct FullDiskTests {
    /// A fixture whose state directory is a tmpfs of `size`, unmounted at the end.
    final class MountedFixture {
        let fixture = Fixture()
        var state: String { fixture.state }
        var filler: String { "\(fixture.root)/state/filler" }

        init(size: String) throws {
            try FileManager.default.createDirectory(atPath: fixture.state, withIntermediateDirectories: false)
            try #require(Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", fixture.state) == 0)
        }

        deinit { _ = Self.run("/bin/umount", "-l", fixture.state) }

        /// Fills what is left of the file system (a 4 KiB page at a time, as tmpfs allocates).
        func fill() {
            let fd = Glibc.open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            precondition(fd >= 0)
            defer { close(fd) }
            let page = [UInt8](repeating: 0x55, count: 4096)
            while page.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == page.count {}
        }

        /// Frees what `fill` took.
        func free() { unlink(filler) }

        static func run(_ path: String, _ arguments: String...) -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            guard (try? process.run()) != nil else { return -1 }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    private static let isRoot = getuid() == 0

    /// A body of about `bytes` bytes naming `index`.
    private func body(_ index: Int, bytes: Int = 1_500) -> String {
        "seq-\(index)-" + String(repeating: "x", count: bytes)
    }

    private func read(_ store: TimelineStore, _ w: WidgetID) throws -> String? {
        guard try store.metadata(w) != nil else { return nil }
        return text(try store.readBody(w, allowOpenClassB: false))
    }

    private func isNoSpace(_ error: any Error) -> Bool {
        if case StoreError.io(_, _, let errno) = error { return errno.rawValue == ENOSPC }
        return false
    }

    @Test(.enabled(if: isRoot, "mounting a tmpfs needs root"))
    func aStartOnAFullDiskKeepsTheJournalAndServesEveryAcknowledgedWrite() throws {
        let m = try MountedFixture(size: "3m")
        let widgets = (0..<20).map { widget("com.example.weather/w#\($0)") }
        var generations: [WidgetID: UInt64] = [:]
        do {
            let store = try m.fixture.open()
            for (index, w) in widgets.enumerated() {
                generations[w] = try store.putTimeline(
                    w, protectionClass: .none, family: nil, reloadDue: nil, body: secure(body(index)), placeholder: nil)
            }
            // The first write twice: a second generation, in the journal too.
            generations[widgets[0]] = try store.putTimeline(
                widgets[0], protectionClass: .none, family: nil, reloadDue: nil, body: secure(body(100)), placeholder: nil)
            #expect(try m.fixture.timelineFiles().isEmpty, "every write is in the journal alone")
            // Dropped without a fold: a crash (or a stop whose fold failed).
        }
        m.fill()

        // The start cannot fold: it keeps the journal and serves from it.
        let full = try m.fixture.open()
        #expect(full.journalUnfoldedAtOpen != nil)
        #expect(try Journal.holdsRecords(stateDirectory: m.state))
        for (index, w) in widgets.enumerated() {
            #expect(try read(full, w) == body(index == 0 ? 100 : index), "\(w)")
            #expect(try full.metadata(w)?.generation == generations[w])
        }
        #expect(try full.listTimelines().count == widgets.count)
        // The owner can still lock.
        full.lock(now: .at(t0))

        // A second crash on the still-full disk loses nothing either.
        let again = try m.fixture.open()
        #expect(again.journalUnfoldedAtOpen != nil)
        for (index, w) in widgets.enumerated() { #expect(try read(again, w) == body(index == 0 ? 100 : index)) }

        // With room again, the next start folds every write into its file, at its generation.
        m.free()
        let reopened = try m.fixture.open()
        #expect(reopened.journalUnfoldedAtOpen == nil)
        #expect(reopened.recoveredJournalRecords > 0)
        #expect(try m.fixture.timelineFiles().count == widgets.count)
        #expect(try !Journal.holdsRecords(stateDirectory: m.state))
        for (index, w) in widgets.enumerated() {
            #expect(try read(reopened, w) == body(index == 0 ? 100 : index))
            #expect(try reopened.metadata(w)?.generation == generations[w])
        }
    }

    /// The owner's way back on a full disk: lock, a wrong passcode (counted), the right
    /// one (the count reset): each writes the keybag at most, which the reserve makes room for.
    @Test(.enabled(if: isRoot, "mounting a tmpfs needs root"))
    func theOwnerCanLockAndUnlockOnAFullDisk() throws {
        let m = try MountedFixture(size: "3m")
        do {
            let store = try m.fixture.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        do {
            let store = try m.fixture.open()
            m.fill()
            // Counted durably: the reserve made room for the keybag.
            #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
                try store.unlock(passcode: secure("0000"), now: .at(t0))
            }
            // Dropped: a crash.
        }
        // A start on the full disk finds it counted, and takes the room given back again.
        let store = try m.fixture.open()
        #expect(store.failedAttempts == 1)
        try store.unlock(passcode: secure("1234"), now: .at(t0.addingTimeInterval(600)))
        #expect(store.deviceState == .unlocked)
        #expect(store.failedAttempts == 0)
        store.lock(now: .at(t0.addingTimeInterval(700)))
        #expect(store.deviceState == .locked)
        // A start on the still-full disk (a crash) finds the reset count.
        let reopened = try m.fixture.open()
        #expect(reopened.failedAttempts == 0)
        #expect(reopened.deviceState == .beforeFirstUnlock)
    }

    /// With no room at all (the reserve gone), a wrong passcode is still counted, in
    /// memory: its answer is an error, but never a free guess.
    @Test(.enabled(if: isRoot, "mounting a tmpfs needs root"))
    func aWrongPasscodeThatCannotBeWrittenIsStillCounted() throws {
        let m = try MountedFixture(size: "3m")
        do {
            let store = try m.fixture.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try m.fixture.open()
        unlink("\(m.state)/\(SpaceReserve.fileName)")
        m.fill()
        do {
            try store.unlock(passcode: secure("0000"), now: .at(t0))
            Issue.record("a wrong passcode unlocked")
        } catch {
            #expect(isNoSpace(error), "\(error)")
        }
        #expect(store.failedAttempts == 1)
        for guess in ["1111", "2222", "3333", "4444", "5555"] {
            _ = try? store.unlock(passcode: secure(guess), now: .at(t0))
        }
        // The delay schedule applies: the guesses after the first free ones wait.
        #expect(throws: StoreError.self) { try store.unlock(passcode: secure("1234"), now: .at(t0)) }
        #expect(store.failedAttempts >= 5)
        #expect(store.deviceState == .beforeFirstUnlock)
    }

    @Test(.enabled(if: isRoot, "mounting a tmpfs needs root"))
    func aDeleteThatFailsOnAFullDiskDeletesNothing() throws {
        let m = try MountedFixture(size: "3m")
        let store = try m.fixture.open()
        let kept = widget("com.example.weather/kept")
        let generation = try store.putTimeline(
            kept, protectionClass: .none, family: nil, reloadDue: nil, body: secure(body(1)), placeholder: nil)
        try store.foldJournal()
        // No reserve to give back: the catalog's save cannot go through.
        unlink("\(m.state)/\(SpaceReserve.fileName)")
        m.fill()
        #expect(throws: StoreError.self) { try store.deleteTimeline(kept) }
        do { try store.deleteTimeline(kept) } catch { #expect(isNoSpace(error), "\(error)") }
        // Answered an error: nothing changed, now or after any later save.
        #expect(try read(store, kept) == body(1))
        m.free()
        try store.putTimeline(
            widget("com.example.weather/other"), protectionClass: .none, family: nil, reloadDue: nil, body: secure("o"),
            placeholder: nil)
        try store.foldJournal()
        let reopened = try m.fixture.open()
        #expect(try read(reopened, kept) == body(1))
        #expect(try reopened.metadata(kept)?.generation == generation)
    }

    @Test(.enabled(if: isRoot, "mounting a tmpfs needs root"))
    func theReserveLetsADeleteThroughOnAFullDiskWithoutFoldingTheJournal() throws {
        let m = try MountedFixture(size: "3m")
        let store = try m.fixture.open()
        let gone = widget("com.example.weather/gone")
        let stays = widget("com.example.weather/stays")
        for w in [gone, stays] {
            try store.putTimeline(w, protectionClass: .none, family: nil, reloadDue: nil, body: secure(body(2)), placeholder: nil)
        }
        try store.putTimeline(gone, protectionClass: .none, family: nil, reloadDue: nil, body: secure(body(3)), placeholder: nil)
        #expect(try m.fixture.timelineFiles().isEmpty)
        m.fill()
        try store.deleteTimeline(gone)
        #expect(try store.metadata(gone) == nil)
        #expect(try read(store, stays) == body(2))
        // Not folded: the delete wrote no timeline file.
        #expect(try m.fixture.timelineFiles().isEmpty)
        #expect(try Journal.holdsRecords(stateDirectory: m.state))
        // After a crash, the journaled writes of the deleted widget do not come back.
        m.free()
        let reopened = try m.fixture.open()
        #expect(try reopened.metadata(gone) == nil)
        #expect(try read(reopened, stays) == body(2))
        #expect(try reopened.listTimelines().map(\.widget) == [stays])
        #expect(try m.fixture.timelineFiles().count == 1)
    }
}
