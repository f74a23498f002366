import Foundation
import Testing
import WidgetModel
@testable import StoreFiles
@testable import StoreLedger
@testable import WidgetStore

/// The compact index gives back exactly what was recorded, and answers the reload
/// schedule: a provider hears of each due reload once (DESIGN §2).
@Suite struct TimelineIndexTests {
    let weather = widget("com.example.weather/forecast")
    let mail = widget("com.example.mail/inbox#lock-1")

    private func key(_ n: UInt8) -> FileDigest { FileDigest(digest: [UInt8](repeating: n, count: 15) + [n &+ 1]) }

    private func metadata(
        _ widget: WidgetID, _ c: ProtectionClass = .none, family: String? = "systemSmall", generation: UInt64 = 1,
        due: Date? = nil, placeholder: [UInt8]? = nil
    ) -> TimelineMetadata {
        TimelineMetadata(
            widget: widget, protectionClass: c, family: family, generation: generation, reloadDue: due,
            placeholder: placeholder)
    }

    /// The usage the catalog gave at open is a view of the entries, not a running sum of
    /// each write's difference: what indexing finds of an untouched file changes
    /// nothing (the table counts it), and every later verdict on a touched file — a
    /// staged write, the previous file indexed again after the write failed, a file
    /// found damaged, a delete — moves it as it moves the index's own tally.
    @Test func theUsageSinceTheOpenFollowsEveryVerdictOnTheFilesTouched() {
        var index = TimelineIndex()
        index.startUsage(from: UsageTable(rows: ["com.example.mail": .init(widgets: 2, bytes: 300)]))
        func usage() -> ProviderUsage? { index.usageSinceOpen(of: "com.example.mail") }
        let other = widget("com.example.mail/outbox")
        // Indexing finds the two files the table counts.
        index.record(key(1), metadata(mail), fileBytes: 100)
        index.record(key(2), metadata(other), fileBytes: 200)
        #expect(usage() == ProviderUsage(widgets: 2, bytes: 300))
        // A write replaces the first (staged), then fails: the previous file is indexed again.
        index.touch(key(1), widget: mail)
        index.record(key(1), metadata(mail, generation: 2), fileBytes: 500)
        #expect(usage() == ProviderUsage(widgets: 2, bytes: 700))
        index.record(key(1), metadata(mail), fileBytes: 100)
        #expect(usage() == ProviderUsage(widgets: 2, bytes: 300))
        // Found damaged at a re-verification: it counts for nobody, as in the index's tally.
        index.recordCorrupt(key(1), widget: mail, .authenticationFailure)
        #expect(usage() == ProviderUsage(widgets: 1, bytes: 200))
        // A new widget (no file before) and a delete.
        index.touch(key(3), widget: widget("com.example.mail/drafts"))
        index.record(key(3), metadata(widget("com.example.mail/drafts")), fileBytes: 50)
        index.touch(key(2), widget: other)
        index.forget(key(2), widget: other)
        index.recordAbsent(key(2), widget: other)
        #expect(usage() == ProviderUsage(widgets: 1, bytes: 50))
        #expect(index.usageTableSinceOpen == UsageTable(rows: ["com.example.mail": .init(widgets: 1, bytes: 50)]))
        #expect(index.usage(of: "com.example.mail") == ProviderUsage(widgets: 1, bytes: 50))
    }

    @Test func keysRoundTripThroughFileNames() {
        let key = FileDigest(digest: (0..<16).map { UInt8($0 * 17) })
        #expect(key.fileName == "00112233445566778899aabbccddeeff.wtl")
        #expect(FileDigest(fileName: key.fileName) == key)
        #expect(FileDigest(fileName: "00112233445566778899AABBCCDDEEFF.wtl") == nil)
        #expect(FileDigest(fileName: "00112233445566778899aabbccddeef.wtl") == nil)
        #expect(FileDigest(fileName: "00112233445566778899aabbccddeeff.tmp") == nil)
    }

    @Test(arguments: ProtectionClass.allCases)
    func aRecordReadsBackWithoutItsPlaceholder(protectionClass: ProtectionClass) {
        var index = TimelineIndex()
        let due = t0.addingTimeInterval(12.5)
        index.record(key(1), metadata(mail, protectionClass, family: "accessoryCircular", generation: 7, due: due, placeholder: [1]))
        index.record(key(2), metadata(weather, protectionClass, family: nil, generation: 2))
        #expect(
            index.verdict(key(1), widget: mail)
                == .present(.init(
                    widget: mail, protectionClass: protectionClass, family: "accessoryCircular", generation: 7,
                    reloadDue: due, hasPlaceholder: true)))
        #expect(
            index.verdict(key(2), widget: weather)
                == .present(.init(
                    widget: weather, protectionClass: protectionClass, family: nil, generation: 2, reloadDue: nil,
                    hasPlaceholder: false)))
        #expect(index.verdict(key(3), widget: widget("com.example.mail/outbox")) == nil)
        #expect(index.verdict(key(1), widget: nil) == nil)
    }

    /// The class is packed as its header code, which the file format fixes, never as
    /// its place in `allCases`: adding or reordering cases cannot change what an entry
    /// decodes to.
    @Test(arguments: [
        (ProtectionClass.complete, UInt8(1)), (.completeUnlessOpen, 2), (.completeUntilFirstUserAuthentication, 3),
        (.none, 4),
    ])
    func theClassIsPackedAsItsHeaderCode(protectionClass: ProtectionClass, detail: UInt8) {
        #expect(protectionClass.code == detail)
        var index = TimelineIndex()
        index.record(key(1), metadata(weather, protectionClass))
        #expect(index.packedClassDetail(weather) == detail)
        #expect(TimelineIndex.classDetail(protectionClass) == detail)
        #expect(TimelineIndex.protectionClass(detail: Int(detail)) == protectionClass)
    }

    @Test(arguments: [
        CorruptionReason.authenticationFailure, .truncated, .badMagic, .unsupportedVersion, .wrongWidget, .wrongClass,
        .malformed,
    ])
    func verdictsOtherThanPresentAreKept(reason: CorruptionReason) {
        var index = TimelineIndex()
        index.recordCorrupt(key(1), widget: nil, reason)
        index.recordAbsent(key(2), widget: nil)
        #expect(index.verdict(key(1), widget: mail) == .corrupt(reason))
        #expect(index.verdict(key(2), widget: weather) == .absent)
        #expect(index.verdict(key(2), widget: nil) == .absent)
        index.removeAbsent()
        #expect(index.verdict(key(2), widget: weather) == nil)
        #expect(index.verdict(key(1), widget: nil) == .corrupt(reason))
        #expect(index.summaries.isEmpty)
    }

    @Test func rewritesAndDeletionsKeepEveryOtherIdIntact() {
        // Enough churn to split and merge the table's blocks many times.
        var index = TimelineIndex()
        var expected: [Int: UInt64] = [:]
        func k(_ i: Int) -> FileDigest { FileDigest(digest: [UInt8](repeating: 0, count: 14) + [UInt8(i / 256), UInt8(i % 256)]) }
        func w(_ i: Int) -> WidgetID { widget("com.example.churn/w\(i % 7)#\(i)-" + String(repeating: "x", count: i % 100)) }
        for round in 0..<40 {
            for i in 0..<600 where (i * 7 + round) % 5 < 3 {
                if (i + round) % 3 == 0 {
                    index.forget(k(i), widget: w(i))
                    expected[i] = nil
                } else {
                    index.record(k(i), metadata(w(i), generation: UInt64(round + 1)))
                    expected[i] = UInt64(round + 1)
                }
            }
        }
        for i in 0..<600 {
            let verdict = index.verdict(k(i), widget: w(i))
            guard let generation = expected[i] else {
                #expect(verdict == nil)
                continue
            }
            guard case .present(let summary) = verdict else {
                Issue.record("missing \(i)")
                continue
            }
            #expect(summary.widget == w(i))
            #expect(summary.generation == generation)
        }
        #expect(index.summaries.map(\.widget) == expected.keys.map(w).sorted())
    }

    @Test func familiesBeyondTheInternTableStayExact() {
        var index = TimelineIndex()
        // More distinct families than the table holds: the rest are kept beside the id.
        let count = Int(UInt16.max) + 10
        for i in 0..<count {
            index.record(
                FileDigest(digest: [UInt8](repeating: 9, count: 12) + withUnsafeBytes(of: UInt32(i).bigEndian, Array.init)),
                metadata(widget("com.example.mail/inbox#\(i)"), family: "family-\(i)"))
        }
        for i in [0, 1000, count - 11, count - 10, count - 1] {
            let k = FileDigest(digest: [UInt8](repeating: 9, count: 12) + withUnsafeBytes(of: UInt32(i).bigEndian, Array.init))
            guard case .present(let summary) = index.verdict(k, widget: widget("com.example.mail/inbox#\(i)")) else {
                Issue.record("missing \(i)")
                continue
            }
            #expect(summary.family == "family-\(i)")
        }
    }

    // MARK: Reload schedule

    @Test func aReloadIsDueAtItsDateAndOnlyUntilAnnounced() {
        var index = TimelineIndex()
        index.record(key(1), metadata(weather, due: t0))
        #expect(index.unannouncedDue(at: t0.addingTimeInterval(-1)).isEmpty)
        #expect(index.nextDue(after: t0.addingTimeInterval(-1)) == t0)
        #expect(index.unannouncedDue(at: t0) == [weather])
        index.markAnnounced(weather)
        #expect(index.unannouncedDue(at: t0.addingTimeInterval(100)).isEmpty)
        #expect(index.nextDue(after: t0.addingTimeInterval(-1)) == nil)
    }

    @Test func aNewGenerationIsDueAgain() {
        var index = TimelineIndex()
        index.record(key(1), metadata(weather, generation: 1, due: t0))
        index.markAnnounced(weather)
        index.record(key(1), metadata(weather, generation: 2, due: t0.addingTimeInterval(60)))
        #expect(index.unannouncedDue(at: t0.addingTimeInterval(30)).isEmpty)
        #expect(index.unannouncedDue(at: t0.addingTimeInterval(60)) == [weather])
    }

    @Test func neverDueAndDeletedTimelinesAreNotAnnounced() {
        var index = TimelineIndex()
        index.record(key(1), metadata(weather, due: nil))
        index.record(key(2), metadata(mail, due: t0))
        index.forget(key(2), widget: mail)
        index.record(key(3), metadata(widget("com.example.mail/outbox"), due: t0))
        index.recordCorrupt(key(3), widget: widget("com.example.mail/outbox"), .authenticationFailure)
        #expect(index.unannouncedDue(at: .distantFuture).isEmpty)
        #expect(index.nextDue(after: .distantPast) == nil)
        #expect(index.summaries.map(\.widget) == [weather])
    }

    /// What `nextDue` must answer: the earliest unannounced due date after `now`.
    private struct Model {
        var items: [Int: (due: Date?, generation: UInt64, announced: Bool)] = [:]
        func nextDue(after now: Date) -> Date? {
            items.values.filter { !$0.announced }.compactMap(\.due).filter { $0 > now }.min()
        }
    }

    /// `nextDue(after:)` remembers its last answer; through any sequence of changes and
    /// instants it must give what a pass over every entry gives.
    @Test(arguments: [1, 2, 3, 4, 5])
    func cachedNextDueMatchesAFullPass(seed: UInt64) throws {
        var random = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let widgets = (0..<12).map { widget("com.example.clock/w\($0)") }
        var index = TimelineIndex()
        var model = Model()
        var now = t0
        for step in 0..<2_000 {
            let i = next(widgets.count)
            let due: Date? = next(5) == 0 ? nil : now.addingTimeInterval(Double(next(200)) - 50)
            switch next(7) {
            case 0:
                let generation = (model.items[i]?.generation ?? 0) + 1
                index.record(key(UInt8(i)), metadata(widgets[i], generation: generation, due: due))
                model.items[i] = (due, generation, false)
            case 1:
                index.forget(key(UInt8(i)), widget: widgets[i])
                model.items[i] = nil
            case 2:
                index.markAnnounced(widgets[i])
                model.items[i]?.announced = true
            case 3:
                index.recordCorrupt(key(UInt8(i)), widget: widgets[i], .truncated)
                model.items[i] = nil
            case 4:
                index.recordAbsent(key(UInt8(i)), widget: widgets[i])
                model.items[i] = nil
            case 5:
                // Time mostly moves on, sometimes back (a test clock, a clock step).
                now = now.addingTimeInterval(Double(next(40)) - 5)
            default:
                break
            }
            #expect(index.nextDue(after: now) == model.nextDue(after: now), "step \(step)")
            let dueNow = model.items.filter { !$0.value.announced && $0.value.due.map { $0 <= now } == true }
            #expect(index.unannouncedDue(at: now) == dueNow.keys.map { widgets[$0] }.sorted(), "step \(step)")
        }
    }
}

/// `ReloadTimelines(provider?, kind?)` asks the index for the widgets it names.
@Suite struct TimelineIndexSelectionTests {
    @Test(arguments: [
        (nil, nil, ["a.b/k", "a.b/k#1", "a.b/kk", "a.bc/k", "x/k#a.b"]),
        ("a.b", nil, ["a.b/k", "a.b/k#1", "a.b/kk"]),
        ("a.b", "k", ["a.b/k", "a.b/k#1"]),
        (nil, "k", ["a.b/k", "a.b/k#1", "a.bc/k", "x/k#a.b"]),
        ("a", nil, []),
        (nil, "k#1", []),
    ] as [(String?, String?, [String])])
    func widgetsAreSelectedByProviderAndKind(provider: String?, kind: String?, expected: [String]) {
        var index = TimelineIndex()
        for (i, id) in ["x/k#a.b", "a.bc/k", "a.b/kk", "a.b/k#1", "a.b/k", "a.b/gone"].enumerated() {
            let key = FileDigest(digest: [UInt8](repeating: UInt8(i), count: 16))
            index.record(
                key, TimelineMetadata(widget: widget(id), protectionClass: .none, family: nil, generation: 1, reloadDue: nil, placeholder: nil))
            if id == "a.b/gone" { index.forget(key, widget: widget(id)) }
        }
        #expect(index.widgets(provider: provider, kind: kind) == expected.map(widget))
    }
}

extension TimelineIndex {
    /// Records a file of no particular size, for the tests that are not about sizes.
    mutating func record(_ key: FileDigest, _ metadata: TimelineMetadata) {
        record(key, metadata, fileBytes: 100)
    }
}
