import Testing
@testable import StoreLedger
@testable import WidgetStore

/// The index's hash table answers exactly as a `Dictionary` would through any sequence
/// of insertions, replacements and removals, including long probe runs.
@Suite struct DigestTableTests {
    func key(_ n: Int, cluster: Bool) -> FileDigest {
        // Clustered keys share `low ^ high`, so they all want the same slot.
        let high = UInt64(n)
        return FileDigest(digest: withUnsafeBytes(of: high.bigEndian, Array.init)
            + withUnsafeBytes(of: (cluster ? high ^ 0xABCD : UInt64(n) &* 0x2545_F491_4F6C_DD1D).bigEndian, Array.init))
    }

    @Test(arguments: [(1, false), (2, true), (3, false), (4, true)])
    func answersAsADictionaryWould(seed: UInt64, clustered: Bool) {
        var random = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        var table = DigestTable<Int>()
        var model: [FileDigest: Int] = [:]
        let universe = clustered ? 60 : 400
        for step in 0..<6_000 {
            let k = key(next(universe), cluster: clustered)
            switch next(10) {
            case 0..<6:
                table[k] = step
                model[k] = step
            case 6..<9:
                table[k] = nil
                model[k] = nil
            default:
                table.removeAll { $0 % 3 == 0 }
                model = model.filter { $0.value % 3 != 0 }
            }
            #expect(table.count == model.count, "step \(step)")
            #expect(table[k] == model[k], "step \(step)")
        }
        for n in 0..<universe {
            let k = key(n, cluster: clustered)
            #expect(table[k] == model[k])
        }
        #expect(Set(table.keys) == Set(model.keys))
        #expect(table.values.sorted() == model.values.sorted())
    }

    @Test func valuesChangeInPlace() {
        var table = DigestTable<Int>()
        for n in 0..<100 { table[key(n, cluster: false)] = n }
        table.updateValues { $0 *= 2 }
        #expect((0..<100).allSatisfy { table[key($0, cluster: false)] == 2 * $0 })
    }
}

extension DigestTableTests {
    @Test func reservingKeepsEveryKey() {
        var table = DigestTable<Int>()
        for n in 0..<50 { table[key(n, cluster: n % 2 == 0)] = n }
        table.reserveCapacity(5_000)
        for n in 50..<5_000 { table[key(n, cluster: n % 2 == 0)] = n }
        #expect(table.count == 5_000)
        #expect((0..<5_000).allSatisfy { table[key($0, cluster: $0 % 2 == 0)] == $0 })
    }
}
