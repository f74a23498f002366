import Testing
@testable import WidgetStore

/// The front-coded table answers as a sorted dictionary of ids would, through inserts,
/// rewrites and removals that split and merge its blocks.
@Suite struct WidgetTableTests {
    private func entry(_ generation: UInt64, due: Double = .nan, family: UInt32 = 0) -> WidgetTable.Entry {
        WidgetTable.Entry(
            generation: generation, due: due, fileBytes: UInt32(generation % 70_000), keyGeneration: UInt32(generation % 3),
            family: family, inlineFamily: generation % 11 == 0 ? Array("inline-\(generation)".utf8) : nil,
            detail: UInt8(1 + generation % 4), announced: generation % 5 == 0, hasPlaceholder: generation % 2 == 0)
    }

    private func same(_ a: WidgetTable.Entry?, _ b: WidgetTable.Entry?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.generation == b.generation && a.due.bitPattern == b.due.bitPattern && a.fileBytes == b.fileBytes
            && a.keyGeneration == b.keyGeneration && a.family == b.family && a.inlineFamily == b.inlineFamily
            && a.detail == b.detail && a.announced == b.announced && a.hasPlaceholder == b.hasPlaceholder
    }

    @Test(arguments: [1, 2, 3])
    func answersAsASortedDictionaryWould(seed: UInt64) {
        var random = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        // Ids that share long prefixes, prefixes of each other, and up to 255 bytes.
        func id(_ n: Int) -> [UInt8] {
            switch n % 4 {
            case 0: Array("com.example.p\(n % 3)/k#\(n)".utf8)
            case 1: Array("com.example.p\(n % 3)/k".utf8) + Array(repeating: UInt8(ascii: "x"), count: n % 200)
            case 2: Array("a/\(n)".utf8)
            default: Array("z.long/".utf8) + Array(repeating: UInt8(ascii: "y"), count: 200) + Array("\(n)".utf8)
            }
        }
        var table = WidgetTable()
        var model: [[UInt8]: WidgetTable.Entry] = [:]
        for step in 0..<6_000 {
            let n = next(1_500)
            let key = id(n)
            if next(3) == 0 {
                let removed = table.remove(key)
                #expect(same(removed, model.removeValue(forKey: key)), "step \(step)")
            } else {
                let value = entry(UInt64(step), due: next(2) == 0 ? .nan : Double(step) / 3, family: UInt32(next(4)))
                let replaced = table.set(key, value)
                #expect(same(replaced, model.updateValue(value, forKey: key)), "step \(step)")
            }
            #expect(table.count == model.count)
            if step % 500 == 0 || step == 5_999 {
                var walked: [([UInt8], WidgetTable.Entry)] = []
                table.walk(from: nil) { id, entry in
                    walked.append((Array(id), entry))
                    return true
                }
                let sorted = model.keys.sorted { $0.lexicographicallyPrecedes($1) }
                #expect(walked.map(\.0) == sorted, "step \(step)")
                #expect(zip(walked, sorted).allSatisfy { same($0.1, model[$1]) })
                for probe in 0..<1_500 { #expect(same(table.entry(for: id(probe)), model[id(probe)])) }
                // The reload schedule's pass, reading only the blocks that can answer.
                let limit = Double(step) / 6
                var due: [[UInt8]] = []
                table.forEachPendingDue(spellingIDs: true, readingBlocksWithEarliest: { $0 <= limit }) { id, at in
                    if at <= limit { due.append(Array(id)) }
                }
                #expect(due == sorted.filter { model[$0]!.pendingDue.map { $0 <= limit } == true })
                var earliest: Double?
                table.forEachPendingDue(spellingIDs: false, readingBlocksWithEarliest: { $0 < (earliest ?? .infinity) }) { _, at in
                    if at > limit, at < (earliest ?? .infinity) { earliest = at }
                }
                #expect(earliest == model.values.compactMap(\.pendingDue).filter { $0 > limit }.min())
                // A walk from any bound starts at the first id not before it.
                for probe in stride(from: 0, to: 1_500, by: 37) {
                    let bound = id(probe)
                    var first: [UInt8]?
                    table.walk(from: { $0.lexicographicallyPrecedes(bound) }) { id, _ in
                        first = Array(id)
                        return false
                    }
                    #expect(first == sorted.first { !$0.lexicographicallyPrecedes(bound) })
                }
            }
        }
    }
}
