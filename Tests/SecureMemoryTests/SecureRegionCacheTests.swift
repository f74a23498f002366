import Testing
@testable import SecureMemory

/// Released secure regions are kept zeroed and handed out again only for their size class.
@Suite struct SecureRegionCacheTests {
    @Test func sizesRoundUpToAPowerOfTwoOfAtLeast32Bytes() {
        #expect(SecureRegionCache.regionSize(for: 1) == 32)
        #expect(SecureRegionCache.regionSize(for: 32) == 32)
        #expect(SecureRegionCache.regionSize(for: 33) == 64)
        #expect(SecureRegionCache.regionSize(for: 3_000) == 4_096)
        #expect(SecureRegionCache.regionSize(for: 64 << 10) == 64 << 10)
        // Above the largest kept size, exact: such regions are never kept.
        #expect(SecureRegionCache.regionSize(for: (64 << 10) + 1) == (64 << 10) + 1)
    }

    @Test func aReleasedBufferIsZeroedAndReusedForItsSizeClassOnly() throws {
        // An unusual size class, so that no other test's buffers interfere.
        let size = 64 << 10
        var address: UInt = 0
        do {
            let secret = try SecureBytes.zeroed(count: size - 100)
            secret.withUnsafeMutableBytes { buffer in
                for i in buffer.indices { buffer[i] = 0xA5 }
                address = UInt(bitPattern: buffer.baseAddress!)
            }
        }
        let other = try SecureBytes.zeroed(count: 100)
        other.withUnsafeBytes { #expect(UInt(bitPattern: $0.baseAddress!) != address) }
        let reused = try SecureBytes.zeroed(count: size - 1)
        reused.withUnsafeBytes { buffer in
            #expect(UInt(bitPattern: buffer.baseAddress!) == address, "the kept region is handed out again")
            #expect(buffer.allSatisfy { $0 == 0 }, "and holds nothing of the secret it held")
        }
    }
}
