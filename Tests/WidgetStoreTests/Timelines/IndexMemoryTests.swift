import Foundation
import Glibc
import Testing
import WidgetModel
import WidgetdPOSIX
@testable import StoreLedger
@testable import WidgetStore

/// The index's memory per stored timeline, as resident pages (issue 19: a million stored
/// timelines within 64 MiB of RSS). Measured in a process of its own, so that tests
/// running beside it do not move the figure.
@Suite struct IndexMemoryTests {
    /// The resident bytes an index of `count` synthetic timelines (ids like the
    /// benchmark's) adds, per timeline, filled as the daemon fills it: every file
    /// recorded in the directory's order (not the ids'), absence dropped, free pages
    /// handed back.
    /// A small index is filled first, so that the code's pages and the runtime's
    /// metadata are resident before the count starts.
    static func bytesPerTimeline(count: Int) -> Double {
        func resident() -> Int {
            // statm's second field: resident pages.
            let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
            return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
        precondition(filled(1_000).count == 1_000)
        ProcessHygiene.returnFreeMemory()
        let before = resident()
        let index = filled(count)
        ProcessHygiene.returnFreeMemory()
        let after = resident()
        precondition(index.count == count)
        return Double(after - before) / Double(count)
    }

    /// An index of `count` timelines, filled as the catalog fills it.
    private static func filled(_ count: Int) -> TimelineIndex {
        var index = TimelineIndex()
        let families = ["systemSmall", "systemMedium", "accessoryCircular"]
        for n in 0..<count {
            // File names are keyed digests: the directory lists the ids in no order.
            let i = Int((UInt64(n) &* 0x9E37_79B9 &+ 7) % UInt64(count))
            var digest = withUnsafeBytes(of: UInt64(i).bigEndian, Array.init)
            digest += withUnsafeBytes(of: (UInt64(i) &* 0x2545_F491_4F6C_DD1D).bigEndian, Array.init)
            index.record(
                FileDigest(digest: digest),
                TimelineMetadata(
                    widget: try! WidgetID("com.example.weather/fill-\(i)"), protectionClass: .completeUnlessOpen,
                    family: families[i % families.count], generation: 1, reloadDue: nil, placeholder: nil),
                fileBytes: 300)
        }
        index.removeAbsent()
        return index
    }

    /// The bound at 100,000 timelines, 20.0 bytes measured (a million takes minutes in
    /// a debug build: set WIDGETD_INDEX_MEMORY_COUNT to measure it).
    static let boundPerTimeline = 24.0

    @Test func anIndexTakesAtMostItsBoundPerStoredTimeline() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let count = ProcessInfo.processInfo.environment["WIDGETD_INDEX_MEMORY_COUNT"].flatMap(Int.init) ?? 100_000
            print(IndexMemoryTests.bytesPerTimeline(count: count))
        }
        let output = String(decoding: try #require(result).standardOutputContent, as: UTF8.self)
        let perTimeline = try #require(output.split(separator: "\n").last.flatMap { Double($0) })
        print("index: \(perTimeline) resident bytes per stored timeline")
        #expect(perTimeline <= Self.boundPerTimeline)
    }

    /// As the daemon runs: malloc fills every chunk it hands out (`M_PERTURB`), so spare
    /// capacity is resident too. Blocks that grew by doubling would leave up to half
    /// of each resident and unused; the bound is the one above and an eighth.
    @Test func anIndexUnderPerturbedMallocStaysWithinAnEighthMore() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            try ProcessHygiene.apply()
            print(IndexMemoryTests.bytesPerTimeline(count: 100_000))
        }
        let output = String(decoding: try #require(result).standardOutputContent, as: UTF8.self)
        let perTimeline = try #require(output.split(separator: "\n").last.flatMap { Double($0) })
        print("index, perturbed malloc: \(perTimeline) resident bytes per stored timeline")
        #expect(perTimeline <= Self.boundPerTimeline * 9 / 8)
    }
}
