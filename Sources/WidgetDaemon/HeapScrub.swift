import Glibc

/// Zeroes the freed heap chunks that glibc's per-thread cache holds.
///
/// `M_PERTURB` overwrites freed chunks, but not those that go into the thread cache
/// (tcache: up to 7 chunks per size, up to 1,032 bytes), and Foundation frees its
/// own buffers — a `JSONEncoder`'s output among them — without zeroing them. After
/// encoding something that holds decrypted content, taking every cached chunk,
/// zeroing it and freeing it again leaves none of that content behind in the cache.
enum HeapScrub {
    /// Takes, zeroes and frees every chunk in this thread's cache (≈ 450 small
    /// allocations, tens of µs): only for rare paths, such as a presentation cache miss.
    static func zeroThreadCache() {
        let sizes = Array(stride(from: 24, through: 1032, by: 16))
        let perSize = 7
        let chunks = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: sizes.count * perSize)
        defer { chunks.deallocate() }
        var count = 0
        for size in sizes {
            for _ in 0..<perSize {
                guard let chunk = malloc(size) else { continue }
                // Each size is a chunk size less its 8-byte header: the whole usable part.
                memset(chunk, 0, size)
                chunks[count] = chunk
                count += 1
            }
        }
        for index in 0..<count { free(chunks[index]) }
    }
}
