import Testing
@testable import SecureMemory

/// Buffers made together share a slab's regions, and each is zeroed when it goes.
@Suite struct SecureSlabRules {
    private func address(_ s: SecureBytes) -> UInt { s.withUnsafeBytes { UInt(bitPattern: $0.baseAddress!) } }

    @Test func buffersOfOneSlabAreCarvedSideBySide() throws {
        let slab = SecureSlab()
        let first = try slab.zeroed(count: 3_000), second = try slab.zeroed(count: 3_000)
        #expect(first.count == 3_000 && second.count == 3_000)
        #expect(first.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        // The next slot, 16-byte aligned: the same region.
        #expect(address(second) == address(first) + 3_008)
        #expect(first.isLocked == second.isLocked)
        // A chunk full, the next buffer starts another.
        let rest = (0..<20).map { _ in try? slab.zeroed(count: 3_000) }
        #expect(rest.allSatisfy { $0 != nil })
    }

    @Test func aBufferIsZeroedWhenReleasedWhileItsRegionLives() throws {
        let slab = SecureSlab()
        let kept = try slab.zeroed(count: 64)
        var released: UInt = 0
        do {
            let secret = try slab.zeroed(count: 64)
            secret.withUnsafeMutableBytes { for i in $0.indices { $0[i] = 0xA5 } }
            released = address(secret)
        }
        // The region is still mapped (`kept` holds it): the released slot reads zero.
        let slot = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: released), count: 64)
        #expect(slot.allSatisfy { $0 == 0 })
        #expect(kept.count == 64)
    }

    @Test func aGrowingBufferMovesOutAndZeroesItsSlot() throws {
        let slab = SecureSlab()
        let kept = try slab.zeroed(count: 32)
        let growing = try slab.zeroed(count: 32)
        growing.withUnsafeMutableBytes { for i in $0.indices { $0[i] = 0x5A } }
        let slot = address(growing)
        try growing.reserveCapacity(10_000)
        #expect(address(growing) != slot)
        #expect(growing.withUnsafeBytes { $0.allSatisfy { $0 == 0x5A } })
        let old = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: slot), count: 32)
        #expect(old.allSatisfy { $0 == 0 })
        #expect(kept.count == 32)
    }

    @Test func aLargeBufferGetsARegionOfItsOwn() throws {
        let slab = SecureSlab()
        let small = try slab.zeroed(count: 100)
        let large = try slab.zeroed(count: SecureSlab.chunkSize / 2)
        let distance = Int(bitPattern: address(large)) - Int(bitPattern: address(small))
        #expect(distance < 0 || distance >= SecureSlab.chunkSize)
        #expect(large.count == SecureSlab.chunkSize / 2)
    }
}
