import Testing
@testable import SecureMemory

private func bytes(_ s: SecureBytes) -> [UInt8] { s.withUnsafeBytes { Array($0) } }
private func secure(_ a: [UInt8]) throws -> SecureBytes { try a.withUnsafeBytes { try SecureBytes(copying: $0) } }

@Suite struct SecureBytesRules {
    @Test func zeroedBufferHoldsZeros() throws {
        let z = try SecureBytes.zeroed(count: 64)
        #expect(z.count == 64)
        #expect(bytes(z) == [UInt8](repeating: 0, count: 64))
    }

    @Test func randomBuffersDiffer() throws {
        let a = try SecureBytes.random(count: 32), b = try SecureBytes.random(count: 32)
        #expect(!a.constantTimeEquals(b))
        #expect(a.constantTimeEquals(try a.copy()))
    }

    @Test func appendGrowsAndKeepsBytes() throws {
        let s = try SecureBytes.empty(reservingCapacity: 2)
        try ([1, 2, 3] as [UInt8]).withUnsafeBytes { try s.append($0) }
        try s.append(try secure(Array(repeating: 9, count: 100)))
        #expect(s.count == 103)
        #expect(bytes(s).prefix(3) == [1, 2, 3])
        s.removeAll()
        #expect(s.isEmpty)
    }

    @Test func buffersOfDifferentLengthAreNotEqual() throws {
        #expect(!(try secure([1, 2])).constantTimeEquals(try secure([1, 2, 3])))
    }
}

@Suite struct LockedMemoryRules {
    /// Within the limit (or with CAP_IPC_LOCK, as root in CI) secure memory says it is
    /// locked, and no failure is counted; the failing case needs a process of its own
    /// (IntegrationTests/LockedMemoryTests), since the limit is the whole process's.
    @Test func secureBytesWithinTheLimitAreLocked() throws {
        let before = LockedMemory.failureCount
        let small = try SecureBytes.zeroed(count: 100)
        let large = try SecureBytes.zeroed(count: 100 << 10)
        #expect(small.isLocked && large.isLocked)
        try small.reserveCapacity(200 << 10)
        #expect(small.isLocked)
        #expect(LockedMemory.failureCount == before)
    }
}

@Suite struct SecureBytesEqualityRules {
    @Test func equalBytesAreEqualAndEmptiesAreEqual() throws {
        #expect(try secure([1, 2, 3]).constantTimeEquals(try secure([1, 2, 3])))
        #expect(!(try secure([1, 2, 3])).constantTimeEquals(try secure([1, 2, 4])))
        #expect(try SecureBytes.zeroed(count: 0).constantTimeEquals(try SecureBytes.empty(reservingCapacity: 64)))
    }

    @Test func anEmptyRandomBufferIsEmpty() throws {
        let empty = try SecureBytes.random(count: 0)
        #expect(empty.isEmpty)
        empty.refillRandom()
        #expect(empty.isEmpty)
    }
}
