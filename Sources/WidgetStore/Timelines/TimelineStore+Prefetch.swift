import Dispatch
import SecureMemory
import WidgetModel

/// Opening many bodies at once: what an unlock's refresh of every watch needs, one
/// file per watched widget, each file a keyed hash (written while its class was open)
/// or one X25519 agreement (≈ 53 µs; written while it was locked) that only the class
/// secret can do. The store's state is bound to its thread, so the files are
/// read and checked there (`readSealed`, the rollback verdict, the key pair), and
/// only the decryption of bytes already read (and the caller's decoding of what it
/// gave) runs on other threads; the results come back to the store's thread, which
/// caches them under the rules `readBody` follows.
extension TimelineStore {
    /// Runs `work(i)` for every `i` in `0..<count`, possibly on several threads at once,
    /// and returns once every one has run. The caller's thread waits in it, so the
    /// store's state (its key pairs included) cannot change until it returns.
    public typealias ConcurrentWork = (_ count: Int, _ work: @Sendable (Int) -> Void) -> Void

    /// `ConcurrentWork` on the caller's thread and one more: the machine's two cores.
    /// Each thread takes the next index when it is free, so a thread that starts late
    /// (a pool thread waking) takes fewer.
    public static func onTwoThreads(_ count: Int, _ work: @Sendable (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { work(0) }
            return
        }
        let next = ClaimCounter()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while let index = next.claim(below: count) { work(index) }
        }
    }

    /// Decrypts and caches the bodies of `widgets` that are stored, readable now (their
    /// class key held), not cached yet, and fit in the cache, the decryptions spread
    /// by `perform`; returns how many were cached. The rest are left to `readBody`,
    /// which meets and reports their errors as it would have: nothing here throws.
    ///
    /// The rules are `readBody`'s: a file verified from disk (or the journal), its
    /// generation not older than the catalog's (`refuseIfRolledBack`), and the cache's
    /// admission rule. And a lock wins: if the store was locked or a class purged by
    /// the time the decryptions end, what they opened for it is zeroed, not cached.
    @discardableResult
    public func prefetchBodies(_ widgets: [WidgetID], perform: ConcurrentWork = TimelineStore.onTwoThreads) -> Int {
        let (cached, _) = prefetch(widgets, perform: perform, decode: { (_: UnsafeRawBufferPointer) -> Never? in nil })
        return cached
    }

    /// `prefetchBodies(_:perform:)`, with `decode` run on the same threads on each body
    /// right after it is opened; returns the decoded values of the bodies it cached, by
    /// widget. A body not cached (a lock overtook it, the cache refused it) drops its
    /// value with it, and one `decode` gives no value for is absent: the caller reads
    /// those the ordinary way. A value is what `decode` makes of the body `readBody`
    /// would return until the store's state next changes; the caller keeps it no
    /// longer than that.
    public func prefetchBodies<Decoded: Sendable>(
        _ widgets: [WidgetID], perform: ConcurrentWork = TimelineStore.onTwoThreads,
        decode: @escaping @Sendable (UnsafeRawBufferPointer) -> Decoded?
    ) -> [WidgetID: Decoded] {
        prefetch(widgets, perform: perform, decode: decode).decoded
    }

    private func prefetch<Decoded: Sendable>(
        _ widgets: [WidgetID], perform: ConcurrentWork, decode: @escaping @Sendable (UnsafeRawBufferPointer) -> Decoded?
    ) -> (cached: Int, decoded: [WidgetID: Decoded]) {
        guard !awaitingPasscodeToRebuildCatalog else { return (0, [:]) }
        let epoch = custody.lockEpoch
        var jobs: [BodyJob] = []
        var seen = Set<WidgetID>()
        // Never more than the cache keeps: a body evicted before it is shown is opened twice.
        let room = max(cache.limit - cache.count, 0)
        for widget in widgets where jobs.count < room && !cache.contains(widget) && seen.insert(widget).inserted {
            if let job = sealedBody(widget) { jobs.append(job) }
        }
        // One file gains nothing from another thread.
        guard jobs.count > 1 else { return (0, [:]) }
        let batch = BodyBatch(jobs, decode: decode)
        perform(jobs.count) { index in batch.open(index) }
        return cacheOpened(batch, epoch: epoch)
    }

    /// What `readBody` does before decrypting, for a widget it would decrypt; `nil` when
    /// it would throw (left to it) or the class key is not held.
    private func sealedBody(_ widget: WidgetID) -> BodyJob? {
        do throws(StoreError) {
            let key = try timelines.indexKey(for: widget)
            let path = "\(timelinesDirectory)/\(key.fileName)"
            guard let (sealed, metadata, _) = try timelines.readSealed(name: key.fileName, expected: widget) else { return nil }
            try timelines.refuseIfRolledBack(key, generation: metadata.generation, file: path)
            timelines.setPlaceholder(key, metadata.placeholder, generation: metadata.generation)
            guard let pair = custody.keyPair(metadata.protectionClass, generation: metadata.keyGeneration) else { return nil }
            return BodyJob(
                widget: widget, sealed: sealed, classKey: pair, path: path, protectionClass: metadata.protectionClass,
                generation: metadata.generation)
        } catch {
            return nil
        }
    }

    /// Caches what `batch` opened, on the store's thread: all of it zeroed instead when
    /// a lock came since `epoch`, and each body whose class is no longer held, or that
    /// the cache does not admit; with the decoded values of those it cached.
    private func cacheOpened<Decoded: Sendable>(_ batch: BodyBatch<Decoded>, epoch: LockEpoch) -> (cached: Int, decoded: [WidgetID: Decoded]) {
        let locked = custody.lockEpoch != epoch
        var cached = 0
        var decoded: [WidgetID: Decoded] = [:]
        for (index, job) in batch.jobs.enumerated() {
            guard let (body, value) = batch.take(index) else { continue }
            guard !locked, custody.lifecycle.isAvailable(job.protectionClass), !cache.contains(job.widget), cache.admits(body)
            else {
                body.removeAll()
                continue
            }
            cache.insert(
                job.widget, body: body, protectionClass: job.protectionClass, generation: job.generation,
                isOpen: job.protectionClass == .completeUnlessOpen)
            cached += 1
            if let value { decoded[job.widget] = value }
        }
        return (cached, decoded)
    }
}

/// A file `prefetchBodies` decrypts: read and checked on the store's thread.
private struct BodyJob {
    let widget: WidgetID
    let sealed: TimelineFile.Sealed
    let classKey: KeyPair
    let path: String
    let protectionClass: ProtectionClass
    let generation: UInt64
}

/// The files of one `prefetchBodies` call and what their decryption and `decode` gave:
/// `jobs` is fixed before the threads start, and each slot of `opened` is written by
/// the one thread that claimed its index and read on the store's thread once they
/// are done.
private final class BodyBatch<Decoded: Sendable>: @unchecked Sendable {
    let jobs: [BodyJob]
    private let decode: @Sendable (UnsafeRawBufferPointer) -> Decoded?
    /// The decrypted bodies, in secure memory, and what `decode` made of each; `nil`
    /// where the file did not open (`readBody` meets it again and reports it).
    private let opened: UnsafeMutableBufferPointer<(body: SecureBytes, decoded: Decoded?)?>

    init(_ jobs: [BodyJob], decode: @escaping @Sendable (UnsafeRawBufferPointer) -> Decoded?) {
        self.jobs = jobs
        self.decode = decode
        opened = .allocate(capacity: jobs.count)
        opened.initialize(repeating: nil)
    }

    deinit {
        // Every body was cached or zeroed (`take`); what is left is released.
        for index in opened.indices { opened[index]?.body.removeAll() }
        opened.deinitialize()
        opened.deallocate()
    }

    /// Decrypts job `index`'s body into its slot, and decodes it.
    func open(_ index: Int) {
        let job = jobs[index]
        guard let body = try? TimelineFile.openBody(job.sealed, classKey: job.classKey, file: job.path) else { return }
        let decoded = body.withUnsafeBytes { decode($0) }
        opened[index] = (body, decoded)
    }

    /// The body job `index` opened and its decoded value, taken out of its slot.
    func take(_ index: Int) -> (body: SecureBytes, decoded: Decoded?)? {
        defer { opened[index] = nil }
        return opened[index]
    }
}

/// Hands out the indices below a bound, each once, to whichever thread asks.
private final class ClaimCounter: @unchecked Sendable {
    private let lock = ThreadLock()
    private var next = 0

    func claim(below count: Int) -> Int? {
        lock.withLock {
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }
}
