import Foundation
import Testing
import WidgetModel
@testable import WidgetStore

/// The index's id order answers `page(after:provider:limit:)` and `widgets(provider:kind:)`
/// exactly as a sorted list of the present widgets would, through every change of entries.
@Suite struct WidgetOrderTests {
    /// Providers whose names prefix one another on both sides of "/" in byte order.
    static let providers = ["com.a", "com.ab", "com.a.b", "x"]

    private func key(_ n: Int) -> FileDigest {
        FileDigest(digest: withUnsafeBytes(of: UInt64(n).bigEndian, Array.init)
            + withUnsafeBytes(of: (UInt64(n) &* 0x2545_F491_4F6C_DD1D).bigEndian, Array.init))
    }

    private func metadata(_ widget: WidgetID, generation: UInt64 = 1, family: String? = nil) -> TimelineMetadata {
        TimelineMetadata(
            widget: widget, protectionClass: .none, family: family, generation: generation, reloadDue: nil,
            placeholder: nil)
    }

    /// The sorted list the index must agree with: the present widgets sorted by their
    /// text, which is `WidgetID`'s own order.
    private struct Model {
        private(set) var present: [Int: WidgetID] = [:]
        private var sorted: [(text: String, id: WidgetID)] = []

        subscript(key: Int) -> WidgetID? {
            get { present[key] }
            set {
                if let old = present[key] { sorted.remove(at: place(of: old.description)) }
                present[key] = newValue
                if let newValue { sorted.insert((newValue.description, newValue), at: place(of: newValue.description)) }
            }
        }

        mutating func removeAll() {
            present = [:]
            sorted = []
        }

        /// Where `text` is or would go in `sorted`.
        private func place(of text: String) -> Int {
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle].text < text { low = middle + 1 } else { high = middle }
            }
            return low
        }

        func page(after: WidgetID?, provider: String?, limit: Int) -> (widgets: [WidgetID], more: Bool) {
            let after = after?.description
            var found: [WidgetID] = []
            for entry in sorted where (provider == nil || entry.id.provider == provider) && after.map({ $0 < entry.text }) != false {
                guard found.count < limit else { return (found, true) }
                found.append(entry.id)
            }
            return (found, false)
        }

        func widgets(provider: String?, kind: String?) -> [WidgetID] {
            Array(sorted.lazy.map(\.id).filter { (provider == nil || $0.provider == provider) && (kind == nil || $0.kind == kind) })
        }
    }

    private func expectSame(
        _ index: TimelineIndex, _ model: Model, after: WidgetID?, provider: String?, limit: Int, _ note: String
    ) {
        let (summaries, more) = index.page(after: after, provider: provider, limit: limit)
        let expected = model.page(after: after, provider: provider, limit: limit)
        #expect(summaries.map(\.widget) == expected.widgets, "\(note) after \(String(describing: after)) provider \(String(describing: provider)) limit \(limit)")
        #expect(more == expected.more, "\(note)")
    }

    /// Pages every provider (and all) through, at a few sizes.
    private func expectAllPages(_ index: TimelineIndex, _ model: Model, _ note: String) {
        for provider in [nil] + Self.providers {
            for limit in [1, 1000] {
                var after: WidgetID?
                var seen: [WidgetID] = []
                while true {
                    let (summaries, more) = index.page(after: after, provider: provider, limit: limit)
                    seen += summaries.map(\.widget)
                    guard more, let last = summaries.last else { break }
                    after = last.widget
                }
                #expect(seen == model.widgets(provider: provider, kind: nil), "\(note) provider \(String(describing: provider)) limit \(limit)")
            }
        }
    }

    /// A seeded walk of records (new, rewrites, re-keyed), forgets, absent and corrupt
    /// verdicts over present entries, removal of the absent ones and the arena's
    /// compaction (long ids churned), checked against the sorted model after each step.
    @Test(arguments: [(1, 150, 3_000), (2, 150, 3_000), (3, 3_000, 1_500)])
    func pagesAndSelectionsMatchASortedListThroughEveryChange(seed: UInt64, keys: Int, steps: Int) throws {
        var random = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        // An id per key and variant: unique across keys, interleaved across providers,
        // long enough that re-keying fills the arena with garbage to compact.
        func id(_ k: Int, _ variant: Int) -> WidgetID {
            widget(
                "\(Self.providers[(k * 7 + variant) % Self.providers.count])/k\((k * 31 + variant) % 5)#\(k)-\(variant)-"
                    + String(repeating: "p", count: 20 + (k * 13 + variant) % 100))
        }
        var index = TimelineIndex()
        var model = Model()
        var variants: [Int: Int] = [:]
        // Most keys stored first, so that the order spans several runs from the start.
        for k in 0..<keys where next(4) != 0 {
            index.record(key(k), metadata(id(k, 0)))
            model[k] = id(k, 0)
            variants[k] = 0
        }
        for step in 0..<steps {
            let k = next(keys)
            switch next(10) {
            case 0, 1, 2:
                // A new widget, or a rewrite of the same one.
                let variant = variants[k] ?? next(3)
                index.record(key(k), metadata(id(k, variant), generation: UInt64(step)))
                model[k] = id(k, variant)
                variants[k] = variant
            case 3:
                // Re-keyed: the file now holds another widget (another family too).
                let variant = (variants[k] ?? 0) + 1 + next(3)
                index.record(key(k), metadata(id(k, variant), generation: UInt64(step), family: "family-\(variant)"))
                model[k] = id(k, variant)
                variants[k] = variant
            case 4:
                index.forget(key(k))
                model[k] = nil
            case 5:
                index.recordAbsent(key(k))
                model[k] = nil
            case 6:
                index.recordCorrupt(key(k), .authenticationFailure)
                model[k] = nil
            case 7:
                if next(20) == 0 { index.removeAbsent() }
            case 8:
                if next(1_000) == 0 {
                    index.removeAll()
                    model.removeAll()
                }
            default:
                break
            }
            // One page per step from a stored id, an id not stored, or the start.
            let after: WidgetID? =
                switch next(3) {
                case 0: model[next(keys)]
                case 1: id(next(keys), next(5))
                default: nil
                }
            let provider = next(5) == 0 ? nil : Self.providers[next(Self.providers.count)]
            expectSame(index, model, after: after, provider: provider, limit: [1, 3, 20][next(3)], "step \(step)")
            // A selection every few steps: each match is a parsed id (slow in debug builds).
            if step % 8 == 0 {
                let kind = next(2) == 0 ? nil : "k\(next(5))"
                #expect(index.widgets(provider: provider, kind: kind) == model.widgets(provider: provider, kind: kind), "step \(step)")
            }
            if step % 500 == 499 { expectAllPages(index, model, "step \(step)") }
        }
        expectAllPages(index, model, "end")
        #expect(index.summaries.count == model.present.count)
    }

    /// Records `ids` under keys 0, 1, ...
    private func index(of ids: [String]) -> (TimelineIndex, Model) {
        var index = TimelineIndex()
        var model = Model()
        for (k, id) in ids.enumerated() {
            index.record(key(k), metadata(widget(id)))
            model[k] = widget(id)
        }
        return (index, model)
    }

    @Test func anEmptyIndexHasAnEmptyLastPage() {
        let index = TimelineIndex()
        for provider in [nil, "com.a"] {
            let (summaries, more) = index.page(after: nil, provider: provider, limit: 10)
            #expect(summaries.isEmpty && !more)
            #expect(index.page(after: widget("com.a/k"), provider: provider, limit: 1).summaries.isEmpty)
        }
        #expect(index.widgets(provider: nil, kind: nil).isEmpty)
        #expect(index.widgets(provider: "com.a", kind: "k").isEmpty)
    }

    @Test func aPageAfterTheLastIdIsEmptyAndTheOneBeforeItSaysNoMore() {
        let (index, _) = index(of: ["com.a/k#1", "com.a/k#2", "com.ab/k"])
        #expect(index.page(after: widget("com.ab/k"), provider: nil, limit: 5).summaries.isEmpty)
        #expect(index.page(after: widget("com.a/k#2"), provider: "com.a", limit: 5).summaries.isEmpty)
        let (summaries, more) = index.page(after: widget("com.a/k#1"), provider: nil, limit: 2)
        #expect(summaries.map(\.widget) == [widget("com.a/k#2"), widget("com.ab/k")])
        #expect(!more)
    }

    @Test func aPageAfterAnIdNotStoredStartsAtTheNextStoredOne() {
        let (index, model) = index(of: ["com.a/k#1", "com.a/k#3", "com.a/m", "x/k"])
        for after in ["com.a/k#2", "com.a/k", "com.a/l", "a/a", "com.a.b/z", "z/z", "com.a/k#1#"] {
            expectSame(index, model, after: widget(after), provider: nil, limit: 2, after)
            expectSame(index, model, after: widget(after), provider: "com.a", limit: 2, after)
        }
    }

    @Test func aProviderThatPrefixesAnotherSeesOnlyItsOwnWidgets() {
        // "com.a.b/…" sorts before "com.a/…" and "com.ab/…" after it.
        let (index, model) = index(of: ["com.ab/a", "com.a.b/z", "com.a/m", "com.a/a", "com.ab/z", "com.a.b/a", "com/a"])
        for provider in ["com.a", "com.ab", "com.a.b", "com", "co"] {
            expectSame(index, model, after: nil, provider: provider, limit: 10, provider)
            expectSame(index, model, after: nil, provider: provider, limit: 1, provider)
            expectSame(index, model, after: widget("com.a/a"), provider: provider, limit: 10, provider)
            #expect(index.widgets(provider: provider, kind: nil) == model.widgets(provider: provider, kind: nil))
        }
        #expect(index.widgets(provider: "com.a", kind: nil) == [widget("com.a/a"), widget("com.a/m")])
    }

    @Test func pagesOfOnePutTogetherAreTheSortedList() {
        let ids = (0..<40).map { "com.a/k#\($0 * 7919 % 41)" }
        let (index, model) = index(of: ids)
        var after: WidgetID?
        var seen: [WidgetID] = []
        while true {
            let (summaries, more) = index.page(after: after, provider: "com.a", limit: 1)
            #expect(summaries.count == 1)
            seen += summaries.map(\.widget)
            guard more else { break }
            after = summaries[0].widget
        }
        #expect(seen == model.widgets(provider: "com.a", kind: nil))
    }

    @Test(arguments: [TimelineIndex.insertedPageLimit, 2_500, 10_000])
    func largePagesOverManyRunsHoldTheSortedList(limit: Int) {
        // More ids than several of the order's runs hold.
        let ids = (0..<(3 * WidgetOrder.runLimit)).map { "\(Self.providers[$0 % 4])/k#\($0 * 7919 % 4099)" }
        let (index, model) = index(of: ids)
        for provider in [nil, "com.a"] {
            var after: WidgetID?
            var seen: [WidgetID] = []
            while true {
                let (summaries, more) = index.page(after: after, provider: provider, limit: limit)
                #expect(summaries.count <= limit)
                seen += summaries.map(\.widget)
                guard more, let last = summaries.last else { break }
                #expect(summaries.count == limit)
                after = last.widget
            }
            #expect(seen == model.widgets(provider: provider, kind: nil))
        }
    }
}
