import Testing
@testable import StoreLedger
@testable import WidgetStore

/// A file's name spells its digest in 32 lowercase hex digits, zero-padded, and reads back.
@Suite struct FileDigestTests {
    @Test(arguments: [
        (FileDigest(high: 0, low: 0), "00000000000000000000000000000000.wtl"),
        (FileDigest(high: 1, low: 0xF), "0000000000000001000000000000000f.wtl"),
        (FileDigest(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210), "0123456789abcdeffedcba9876543210.wtl"),
        (FileDigest(high: .max, low: .max), "ffffffffffffffffffffffffffffffff.wtl"),
    ])
    func aNameSpellsItsDigestAndReadsBack(_ digest: FileDigest, _ name: String) {
        #expect(digest.fileName == name)
        #expect(digest.description == name)
        #expect(FileDigest(fileName: name) == digest)
    }

    @Test func everyNibbleLandsInItsPlace() {
        for shift in stride(from: 0, to: 64, by: 4) {
            for value in [UInt64(0x1), 0xA, 0xF] {
                let digest = FileDigest(high: value << UInt64(shift), low: ~(value << UInt64(shift)))
                let name = digest.fileName
                #expect(name.utf8.count == 36 && name.hasSuffix(".wtl"))
                #expect(FileDigest(fileName: name) == digest)
            }
        }
    }
}
