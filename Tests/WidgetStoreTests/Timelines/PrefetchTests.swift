import Foundation
import Testing
import WidgetModel
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// Opening many bodies together (`prefetchBodies`): what it caches is what `readBody`
/// would have read, under the same rules, and a lock that comes while the bodies are
/// being decrypted leaves nothing of a purged class cached or readable.
@Suite struct PrefetchRules {
    static let health = (0..<6).map { widget("com.example.health/ring-\($0)") }

    /// A store with six class-A timelines and a passcode, locked (class A purged at
    /// once, `classAGrace` 0) and unlocked again: nothing of class A is cached.
    private func unlockedAfterAPurge(_ f: Fixture, limit: Int = 1024) throws -> TimelineStore {
        var configuration = StoreConfiguration.test
        configuration.classAGrace = 0
        configuration.maxCachedTimelines = limit
        let store = try f.open(configuration)
        try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        for w in Self.health {
            try store.putTimeline(
                w, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("body of \(w)"), placeholder: nil)
        }
        store.lock(now: .at(t0))
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        for w in Self.health { #expect(!store.isCached(w)) }
        return store
    }

    /// Runs the work in order on the caller's thread, counting the calls.
    private final class Serial {
        var counts: [Int] = []
        var between: () -> Void = {}

        var perform: TimelineStore.ConcurrentWork {
            { count, work in
                self.counts.append(count)
                for index in 0..<count {
                    if index == count / 2 { self.between() }
                    work(index)
                }
            }
        }
    }

    /// The stored files of `widgets`, by widget, their writes folded out of the journal.
    private func files(_ store: TimelineStore, _ f: Fixture, _ widgets: [WidgetID]) throws -> [WidgetID: String] {
        try store.foldJournal()
        var found: [WidgetID: String] = [:]
        for name in try f.timelineFiles() {
            let header = try TimelineFile.parse(Array(FileManager.default.contents(atPath: name)!), expected: nil, file: name).header
            if widgets.contains(header.widget) { found[header.widget] = name }
        }
        return found
    }

    /// The files are read on the threads that open them, while the store's thread
    /// waits: what is on disk when they run is what they read.
    @Test func theFilesAreReadWhereTheyAreOpened() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f)
        let paths = try files(store, f, Self.health)
        let serial = Serial()
        serial.between = {
            for w in Self.health { try? FileManager.default.removeItem(atPath: paths[w]!) }
        }
        // Half were read before the files went; the rest find none.
        #expect(store.prefetchBodies(Self.health, perform: serial.perform) == 3)
        #expect(serial.counts == [6])
        for w in Self.health.prefix(3) { #expect(store.isCached(w)) }
        for w in Self.health.dropFirst(3) {
            #expect(!store.isCached(w))
            #expect(throws: StoreError.widgetNotFound) { _ = try store.readBody(w, allowOpenClassB: false) }
        }
    }

    /// A damaged file, or one that cannot be read, fails alone: the others are opened
    /// and cached, and its read reports what it reports without the prefetch.
    @Test func aFileThatFailsFailsAlone() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f)
        let paths = try files(store, f, Self.health)
        // A body whose last byte is flipped, a truncated file, and a link in place of a file.
        var flipped = Array(FileManager.default.contents(atPath: paths[Self.health[1]]!)!)
        flipped[flipped.count - 1] ^= 1
        try Data(flipped).write(to: URL(fileURLWithPath: paths[Self.health[1]]!))
        let truncated = Array(FileManager.default.contents(atPath: paths[Self.health[3]]!)!).prefix(20)
        try Data(truncated).write(to: URL(fileURLWithPath: paths[Self.health[3]]!))
        try FileManager.default.removeItem(atPath: paths[Self.health[4]]!)
        try FileManager.default.createSymbolicLink(atPath: paths[Self.health[4]]!, withDestinationPath: paths[Self.health[0]]!)
        let failing = [Self.health[1], Self.health[3], Self.health[4]]

        // What the same files report to a store that reads each alone.
        let control = Fixture()
        let alone = try unlockedAfterAPurge(control)
        let alonePaths = try files(alone, control, Self.health)
        for w in failing {
            try FileManager.default.removeItem(atPath: alonePaths[w]!)
            try FileManager.default.copyItem(atPath: paths[w]!, toPath: alonePaths[w]!)
        }
        let expected = failing.prefix(2).map { w in corruption { _ = try alone.readBody(w, allowOpenClassB: false) } }
        #expect(expected[0] != nil && expected[1] != nil)
        #expect(throws: StoreError.unsafeEntry(path: alonePaths[failing[2]]!, reason: .symbolicLink)) {
            _ = try alone.readBody(failing[2], allowOpenClassB: false)
        }

        #expect(store.prefetchBodies(Self.health) == 3)
        for w in Self.health where !failing.contains(w) {
            #expect(store.isCached(w))
            #expect(text(try store.readBody(w, allowOpenClassB: false)) == "body of \(w)")
        }
        for w in failing { #expect(!store.isCached(w)) }
        #expect(corruption { _ = try store.readBody(failing[0], allowOpenClassB: false) } == expected[0])
        #expect(corruption { _ = try store.readBody(failing[1], allowOpenClassB: false) } == expected[1])
        #expect(throws: StoreError.unsafeEntry(path: paths[failing[2]]!, reason: .symbolicLink)) {
            _ = try store.readBody(failing[2], allowOpenClassB: false)
        }
    }

    @Test func theBodiesOpenedTogetherAreCachedAndReadAsReadBodyWouldRead() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f)
        // A widget twice, and one never stored: each stored one is opened once.
        #expect(store.prefetchBodies(Self.health + [Self.health[0], widget("com.example.health/none")]) == 6)
        for w in Self.health {
            #expect(store.isCached(w))
            #expect(text(try store.readBody(w, allowOpenClassB: false)) == "body of \(w)")
        }
        // Cached already: nothing is opened again.
        let serial = Serial()
        #expect(store.prefetchBodies(Self.health, perform: serial.perform) == 0)
        #expect(serial.counts.isEmpty)
    }

    @Test func aLockWhileTheBodiesAreDecryptedLeavesNothingCachedOrReadable() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f)
        let serial = Serial()
        serial.between = { store.lock(now: .at(t0)) }
        #expect(store.prefetchBodies(Self.health, perform: serial.perform) == 0)
        #expect(serial.counts == [6])
        for w in Self.health {
            #expect(!store.isCached(w))
            #expect(throws: StoreError.protectedDataUnavailable) { _ = try store.readBody(w, allowOpenClassB: false) }
        }
    }

    @Test func aClassPurgedWithoutANewLockIsNotCachedEither() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f)
        let serial = Serial()
        // Locked before the pass, with a grace: the purge falls due while it runs.
        var configuration = store.configuration
        configuration.classAGrace = 10
        store.configuration = configuration
        store.lock(now: .at(t0))
        #expect(store.isKeyAvailable(.complete))
        serial.between = { store.advance(to: .at(t0.addingTimeInterval(11))) }
        #expect(store.prefetchBodies(Self.health, perform: serial.perform) == 0)
        #expect(serial.counts == [6])
        for w in Self.health { #expect(!store.isCached(w)) }
    }

    @Test func noMoreAreOpenedThanTheCacheHolds() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f, limit: 3)
        let serial = Serial()
        #expect(store.prefetchBodies(Self.health, perform: serial.perform) == 3)
        #expect(serial.counts == [3])
        #expect(Self.health.filter(store.isCached).count == 3)
    }

    @Test func aRolledBackFileIsNotOpenedAndStillRefused() throws {
        let f = Fixture()
        let path: String
        let old: [UInt8]
        do {
            let store = try unlockedAfterAPurge(f)
            try store.foldJournal()
            path = try #require(try f.timelineFiles().first { name in
                try TimelineFile.parse(Array(FileManager.default.contents(atPath: name)!), expected: nil, file: name)
                    .header.widget == Self.health[0]
            })
            old = Array(try #require(FileManager.default.contents(atPath: path)))
            try store.putTimeline(
                Self.health[0], protectionClass: .complete, family: nil, reloadDue: nil, body: secure("newer"), placeholder: nil)
            try store.foldJournal()
        }
        try Data(old).write(to: URL(fileURLWithPath: path))
        let store = try f.open()
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(store.prefetchBodies(Self.health) == 5)
        #expect(!store.isCached(Self.health[0]))
        #expect(corruption { _ = try store.readBody(Self.health[0], allowOpenClassB: false) } == .rolledBack)
    }

    /// Each body is decoded on the thread that opened it; the values come back for the
    /// bodies cached, and a body its decode gives nothing for is cached all the same.
    @Test func theDecodedValuesOfTheCachedBodiesComeBack() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f)
        let serial = Serial()
        let decoded = store.prefetchBodies(Self.health + [widget("com.example.health/none")], perform: serial.perform) { bytes in
            let body = String(decoding: bytes, as: UTF8.self)
            return body.hasSuffix("ring-0") ? nil : body
        }
        // The widget never stored is looked for on the threads too, and has no file.
        #expect(serial.counts == [7])
        #expect(decoded.count == 5 && decoded[Self.health[0]] == nil)
        for w in Self.health.dropFirst() { #expect(decoded[w] == "body of \(w)") }
        for w in Self.health { #expect(store.isCached(w)) }
        // Cached already: nothing is opened or decoded again.
        #expect(store.prefetchBodies(Self.health, perform: serial.perform) { _ in 1 }.isEmpty)
        #expect(serial.counts == [7])
    }

    @Test func aLockWhileTheBodiesAreDecodedGivesNoValues() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f)
        let serial = Serial()
        serial.between = { store.lock(now: .at(t0)) }
        let decoded = store.prefetchBodies(Self.health, perform: serial.perform) { String(decoding: $0, as: UTF8.self) }
        #expect(serial.counts == [6])
        #expect(decoded.isEmpty)
        for w in Self.health { #expect(!store.isCached(w)) }
    }

    @Test func noMoreAreDecodedThanTheCacheHolds() throws {
        let f = Fixture()
        let store = try unlockedAfterAPurge(f, limit: 3)
        // One cached first: two more fit, and only theirs come back.
        _ = try store.readBody(Self.health[5], allowOpenClassB: false)
        let decoded = store.prefetchBodies(Self.health) { String(decoding: $0, as: UTF8.self) }
        #expect(decoded.count == 2)
        for (w, body) in decoded { #expect(store.isCached(w) && body == "body of \(w)") }
    }
}
