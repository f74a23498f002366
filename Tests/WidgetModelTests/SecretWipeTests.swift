import StrictJSON
import Testing

/// The one wipe of the pure modules zeroes exactly what it is given.
struct SecretWipeTests {
    @Test func zeroesAnArrayInPlace() {
        var bytes: [UInt8] = Array("passcode 1234".utf8)
        let before = bytes.withUnsafeBytes { $0.baseAddress }
        SecretWipe.zero(&bytes)
        #expect(bytes == [UInt8](repeating: 0, count: 13))
        #expect(bytes.withUnsafeBytes { $0.baseAddress } == before)
    }

    @Test func zeroesOnlyTheRangeGiven() {
        var bytes: [UInt8] = [1, 2, 3, 4, 5, 6]
        bytes.withUnsafeMutableBytes { SecretWipe.zero($0.baseAddress! + 2, count: 3) }
        #expect(bytes == [1, 2, 0, 0, 0, 6])
    }

    @Test func anEmptyOrMissingBufferIsANoOp() {
        SecretWipe.zero(nil, count: 8)
        SecretWipe.zero(UnsafeMutableRawBufferPointer(start: nil, count: 0))
        var empty: [UInt8] = []
        SecretWipe.zero(&empty)
        #expect(empty.isEmpty)
    }
}
