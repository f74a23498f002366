import Foundation
import Glibc
import Testing
import WidgetModel
import WidgetdPOSIX
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// Device key, timeline metadata, limits and the cache.
@Suite struct StoreBasics {
    @Test func deviceKeyIsCreatedWithMode0600() throws {
        let f = Fixture()
        _ = try f.open()
        var info = stat()
        #expect(stat("\(f.state)/device.key", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(info.st_size == 32)
    }

    @Test(arguments: [0o640, 0o604, 0o644])
    func readableDeviceKeyIsRefused(mode: Int) throws {
        let f = Fixture()
        _ = try f.open()
        let path = "\(f.state)/device.key"
        #expect(chmod(path, mode_t(mode)) == 0)
        #expect(throws: StoreError.deviceKey(.insecurePermissions(path: path))) { try f.open() }
    }

    @Test func credentialDeviceKeyIsPreferredAndMustBe32Bytes() throws {
        let f = Fixture()
        let credentials = "\(f.root)/credentials"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        let keyPath = "\(credentials)/device-key"
        _ = FileManager.default.createFile(atPath: keyPath, contents: Data(repeating: 7, count: 32))
        do {
            let store = try f.open(credentials: credentials)
            try putOnePerClass(store)
        }
        #expect(!FileManager.default.fileExists(atPath: "\(f.state)/device.key"))
        #expect(text(try f.open(credentials: credentials).readBody(widgetD, allowOpenClassB: false)) == "body of \(widgetD)")
        // Another device key cannot open this keybag: a typed error, not a silent reset.
        _ = FileManager.default.createFile(atPath: keyPath, contents: Data(repeating: 8, count: 32))
        #expect(throws: StoreError.corrupt(file: "\(f.state)/keybag", reason: .authenticationFailure)) {
            try f.open(credentials: credentials)
        }
        _ = FileManager.default.createFile(atPath: keyPath, contents: Data(repeating: 7, count: 31))
        #expect(throws: StoreError.deviceKey(.wrongSize(path: keyPath, bytes: 31))) { try f.open(credentials: credentials) }
    }

    @Test func metadataRoundTripsAndGenerationsIncrease() throws {
        let f = Fixture()
        let store = try f.open()
        let due = t0.addingTimeInterval(900)
        #expect(try store.metadata(widgetC) == nil)
        #expect(try store.putTimeline(widgetC, protectionClass: .completeUntilFirstUserAuthentication, family: "accessoryRectangular", reloadDue: due, body: secure("v1"), placeholder: [1, 2]) == 1)
        #expect(try store.putTimeline(widgetC, protectionClass: .completeUntilFirstUserAuthentication, family: "accessoryRectangular", reloadDue: nil, body: secure("v2"), placeholder: nil) == 2)
        let expected = TimelineMetadata(
            widget: widgetC, protectionClass: .completeUntilFirstUserAuthentication, family: "accessoryRectangular",
            generation: 2, reloadDue: nil, placeholder: [1, 2])
        #expect(try store.metadata(widgetC) == expected)
        #expect(try f.open().metadata(widgetC) == expected)
        #expect(text(try f.open().readBody(widgetC, allowOpenClassB: false)) == "v2")
        try store.putTimeline(widgetC, protectionClass: .none, family: nil, reloadDue: due, body: secure("v3"), placeholder: [])
        #expect(try store.metadata(widgetC)?.reloadDue == due)
        #expect(try store.metadata(widgetC)?.placeholder == [])
        try store.foldJournal()  // the files, not the journal, are what this test examines
        #expect(try f.timelineFiles().count == 1)
    }

    @Test func sizeLimitsAreEnforced() throws {
        let f = Fixture()
        var configuration = StoreConfiguration.test
        configuration.maxTimelineBytes = 10
        configuration.maxPlaceholderBytes = 4
        let store = try f.open(configuration)
        #expect(throws: StoreError.tooLarge(limit: 10)) {
            try store.putTimeline(widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("01234567890"), placeholder: nil)
        }
        #expect(throws: StoreError.tooLarge(limit: 4)) {
            try store.putTimeline(widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("0"), placeholder: [1, 2, 3, 4, 5])
        }
        try store.putTimeline(widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("0123456789"), placeholder: [1, 2, 3, 4])
    }

    @Test func deleteRemovesTheTimeline() throws {
        let f = Fixture()
        let store = try f.open()
        try putOnePerClass(store)
        try store.deleteTimeline(widgetA)
        #expect(throws: StoreError.widgetNotFound) { try store.readBody(widgetA, allowOpenClassB: true) }
        #expect(throws: StoreError.widgetNotFound) { try store.deleteTimeline(widgetA) }
        #expect(try store.metadata(widgetA) == nil)
        #expect(try store.listTimelines().count == 3)
    }

    @Test func cachePurgeZeroesBodiesEvenIfReferencedElsewhere() throws {
        var cache = PlaintextCache(limit: 10, requireLockedMemory: true)
        let a = secure("class A content"), b = secure("open B"), c = secure("class C")
        cache.insert(widgetA, body: a, protectionClass: .complete, generation: 1, isOpen: false)
        cache.insert(widgetB, body: b, protectionClass: .completeUnlessOpen, generation: 1, isOpen: true)
        cache.insert(widgetC, body: c, protectionClass: .completeUntilFirstUserAuthentication, generation: 1, isOpen: false)
        cache.purge(.completeUnlessOpen, keepingOpen: true)
        #expect(cache.contains(widgetB) && b.count == 6)
        cache.purge(.complete, keepingOpen: false)
        #expect(!cache.contains(widgetA))
        #expect(a.count == 0)
        #expect(a.withUnsafeBytes { _ in true })
        cache.removeAll()
        #expect(b.count == 0 && c.count == 0 && cache.count == 0)
    }

    @Test func cacheEvictsTheLeastRecentlyUsed() throws {
        var cache = PlaintextCache(limit: 2, requireLockedMemory: true)
        cache.insert(widgetA, body: secure("a"), protectionClass: .none, generation: 1, isOpen: false)
        cache.insert(widgetB, body: secure("b"), protectionClass: .none, generation: 1, isOpen: false)
        _ = cache.entry(widgetA)
        cache.insert(widgetC, body: secure("c"), protectionClass: .none, generation: 1, isOpen: false)
        #expect(cache.contains(widgetA) && cache.contains(widgetC) && !cache.contains(widgetB))
        cache.limit = 1
        #expect(cache.count == 1 && cache.contains(widgetC))
    }

    @Test func errorDescriptionsCarryNoSecrets() {
        let errors: [StoreError] = [
            .wrongPasscode(failedAttempts: 5, retryAfter: 60), .tryAgainLater(retryAfter: 30.2),
            .corrupt(file: "/x/keybag", reason: .authenticationFailure), .deviceKey(.insecurePermissions(path: "/k")),
            .io(operation: "open", path: "/p", errno: .noSuchFileOrDirectory), .protectedDataUnavailable,
        ]
        #expect(errors.map(\.description) == [
            "wrong passcode (5 failed attempts); try again in 60 s", "too many failed attempts; try again in 31 s",
            "/x/keybag: authentication failed (altered, or not made with this device key)",
            "device key /k is readable by group or others, or owned by another user; fix with chmod 600 / chown, or remove it only if no data must survive",
            "open /p: No such file or directory",
            "protected data unavailable: the class key is not released in this state",
        ])
    }
}

/// The in-memory metadata index agrees with the files.
@Suite struct MetadataIndexRules {
    @Test func indexFollowsWritesDeletesAndWipes() throws {
        let f = Fixture()
        let store = try f.open()
        #expect(try store.listTimelines().isEmpty)
        try putOnePerClass(store)
        #expect(try store.listTimelines().count == 4)
        try store.deleteTimeline(widgetB)
        #expect(try store.metadata(widgetB) == nil)
        #expect(try store.listTimelines().map(\.widget) == [widgetA, widgetD, widgetC])
        #expect(try f.open().listTimelines() == store.listTimelines())
        try store.wipe()
        #expect(try store.listTimelines().isEmpty)
        #expect(try store.metadata(widgetA) == nil)
    }

    @Test func damagedFileIsRememberedAsCorruptUntilReplaced() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try putOnePerClass(store)
            try store.foldJournal()
        }
        let path = try f.timelineFiles()[0]
        var bytes = Array(FileManager.default.contents(atPath: path)!)
        bytes[bytes.count - 1] ^= 1
        bytes[40] ^= 1
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let store = try f.open()
        #expect(try store.listTimelines().count == 3)
        let damaged = classOf.keys.first { (try? store.metadata($0)) == nil }!
        #expect(corruption { _ = try store.metadata(damaged) } != nil)
        try store.putTimeline(damaged, protectionClass: .none, family: nil, reloadDue: nil, body: secure("fixed"), placeholder: nil)
        // Numbered above the generation the catalog recorded for the damaged file.
        #expect(try store.metadata(damaged)?.generation == 2)
        #expect(try store.listTimelines().count == 4)
    }
}
