import Foundation
import Glibc
import Testing
import WidgetModel
import WidgetdPOSIX
@testable import WidgetStore

/// The index's memory per stored timeline, as resident pages (issue 19: a million stored
/// timelines within 64 MiB of RSS). Measured in a process of its own, so that tests
/// running beside it do not move the figure.
@Suite struct IndexMemoryTests {
    /// The resident bytes an index of `count` synthetic timelines (ids like the
    /// benchmark's) adds, per timeline, filled as the daemon fills it: room reserved for
    /// the count first, every file recorded, absence dropped, free pages handed back.
    /// A small index is filled first, so that the code's pages and the runtime's
    /// metadata are resident before the count starts.
    static func bytesPerTimeline(count: Int, reserving reserved: Int? = nil) -> Double {
        func resident() -> Int {
            // statm's second field: resident pages.
            let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
            return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
        precondition(filled(1_000).count == 1_000)
        ProcessHygiene.returnFreeMemory()
        let before = resident()
        let index = filled(count, reserving: reserved ?? count)
        ProcessHygiene.returnFreeMemory()
        let after = resident()
        precondition(index.count == count)
        return Double(after - before) / Double(count)
    }

    /// An index of `count` timelines, filled as the catalog fills it.
    private static func filled(_ count: Int, reserving reserved: Int? = nil) -> TimelineIndex {
        var index = TimelineIndex()
        index.reserveCapacity(reserved ?? count)
        let families = ["systemSmall", "systemMedium", "accessoryCircular"]
        for i in 0..<count {
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

    /// The bound at 100,000 timelines, 92.0 bytes measured (a million takes minutes in
    /// a debug build: set WIDGETD_INDEX_MEMORY_COUNT to measure it; 90.5 there).
    static let boundPerTimeline = 96.0

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
    /// capacity is resident too, and the catalog's count fell short of the files by
    /// 0.03% on the benchmark's million-timeline store. Growing by doubling made that
    /// 150 bytes per timeline (the keys and values doubled at the end, the arena's ids
    /// in twice their room); the bound is the one above and an eighth.
    @Test func anIndexThatOutgrowsItsReservationUnderPerturbedMallocStaysWithinAnEighthMore() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            try ProcessHygiene.apply()
            print(IndexMemoryTests.bytesPerTimeline(count: 100_000, reserving: 99_000))
        }
        let output = String(decoding: try #require(result).standardOutputContent, as: UTF8.self)
        let perTimeline = try #require(output.split(separator: "\n").last.flatMap { Double($0) })
        print("index, perturbed malloc, outgrown reservation: \(perTimeline) resident bytes per stored timeline")
        #expect(perTimeline <= Self.boundPerTimeline * 9 / 8)
    }
}
