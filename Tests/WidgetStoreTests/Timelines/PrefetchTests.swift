import Foundation
import Testing
import WidgetModel
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
            try store.checkpoint()
            path = try #require(try f.timelineFiles().first { name in
                try TimelineFile.parse(Array(FileManager.default.contents(atPath: name)!), expected: nil, file: name)
                    .header.widget == Self.health[0]
            })
            old = Array(try #require(FileManager.default.contents(atPath: path)))
            try store.putTimeline(
                Self.health[0], protectionClass: .complete, family: nil, reloadDue: nil, body: secure("newer"), placeholder: nil)
            try store.checkpoint()
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
        #expect(serial.counts == [6])
        #expect(decoded.count == 5 && decoded[Self.health[0]] == nil)
        for w in Self.health.dropFirst() { #expect(decoded[w] == "body of \(w)") }
        for w in Self.health { #expect(store.isCached(w)) }
        // Cached already: nothing is opened or decoded again.
        #expect(store.prefetchBodies(Self.health, perform: serial.perform) { _ in 1 }.isEmpty)
        #expect(serial.counts == [6])
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
