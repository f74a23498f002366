import Dispatch
import SecureMemory
import StoreKeys
import StoreLedger
import WidgetdPOSIX
import WidgetModel

/// Opening many bodies at once: what an unlock's refresh of every watch needs, one
/// file per watched widget, each file a keyed hash (written while its class was open)
/// or one X25519 agreement (≈ 53 µs; written while it was locked) that only the class
/// secret can do. The store's state is bound to its thread, which waits while other
/// threads read, verify (`SealedFileReader`: the journal, the file, the catalog's
/// verdicts, the metadata), decrypt and decode the files; the results come back to the
/// store's thread, which records the placeholders verified and caches the bodies under
/// the rules `readBody` follows.
extension TimelineStore {
    /// Runs `work(i)` for every `i` in `0..<count`, possibly on several threads at once,
    /// and returns once every one has run. The caller's thread waits in it, so the
    /// store's state (its key pairs included) cannot change until it returns.
    package typealias ConcurrentWork = (_ count: Int, _ work: @Sendable (Int) -> Void) -> Void

    /// `ConcurrentWork` on the caller's thread and one more: the machine's two cores.
    /// Each thread takes the next index when it is free, so a thread that starts late
    /// (a pool thread waking) takes fewer.
    package static func onTwoThreads(_ count: Int, _ work: @Sendable (Int) -> Void) {
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
    /// class key held), not cached yet, and fit in the cache, the reads and decryptions
    /// spread by `perform`; returns how many were cached. The rest are left to
    /// `readBody`, which meets and reports their errors as it would have: nothing here
    /// throws, and a file that fails fails alone.
    ///
    /// The rules are `readBody`'s: a file verified from disk (or the journal), its
    /// generation not older than the catalog's (`refuseIfRolledBack`), its placeholder
    /// recorded, and the cache's admission rule. And a lock wins: if the store was
    /// locked or a class purged by the time the decryptions end, what they opened for it
    /// is zeroed, not cached.
    @discardableResult
    package func prefetchBodies(_ widgets: [WidgetID], perform: ConcurrentWork = TimelineStore.onTwoThreads) -> Int {
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
    ///
    /// Specialised here for the refresh pass's excerpts: unspecialised across the module
    /// boundary, the per-body bookkeeping on the store's thread (`cacheOpened`, the
    /// results of `BodyBatch`) goes through generic metadata and witness calls.
    @_specialize(exported: true, where Decoded == TimelineExcerpt)
    package func prefetchBodies<Decoded: Sendable>(
        _ widgets: [WidgetID], perform: ConcurrentWork = TimelineStore.onTwoThreads,
        decode: @escaping @Sendable (UnsafeRawBufferPointer) -> Decoded?
    ) -> [WidgetID: Decoded] {
        prefetch(widgets, perform: perform, decode: decode).decoded
    }

    private func prefetch<Decoded: Sendable>(
        _ widgets: [WidgetID], perform: ConcurrentWork, decode: @escaping @Sendable (UnsafeRawBufferPointer) -> Decoded?
    ) -> (cached: Int, decoded: [WidgetID: Decoded]) {
        guard !awaitingPasscodeToRebuildLedger else { return (0, [:]) }
        let epoch = custody.lockEpoch
        var chosen: [WidgetID] = []
        chosen.reserveCapacity(widgets.count)
        var seen = Set<WidgetID>(minimumCapacity: widgets.count)
        // Never more than the cache keeps: a body evicted before it is shown is opened twice.
        let room = max(cache.limit - cache.count, 0)
        for widget in widgets where chosen.count < room && !cache.contains(widget) && seen.insert(widget).inserted {
            chosen.append(widget)
        }
        // One file gains nothing from another thread.
        guard chosen.count > 1 else { return (0, [:]) }
        let batch = BodyBatch(chosen, reader: timelines.reader, keyPairs: HeldKeyPairs(custody.lifecycle), decode: decode)
        perform(chosen.count) { index in batch.open(index) }
        return cacheOpened(batch, epoch: epoch)
    }

    /// Records what `batch` verified and caches what it opened, on the store's thread:
    /// each placeholder verified with its body (as `readBody` records it); every body
    /// zeroed instead when a lock came since `epoch`, and each whose class is no longer
    /// held, or that the cache does not admit; with the decoded values of those it cached.
    private func cacheOpened<Decoded: Sendable>(_ batch: BodyBatch<Decoded>, epoch: LockEpoch) -> (cached: Int, decoded: [WidgetID: Decoded]) {
        let locked = custody.lockEpoch != epoch
        var cached = 0
        var decoded = [WidgetID: Decoded](minimumCapacity: batch.widgets.count)
        for index in batch.widgets.indices {
            guard let (key, metadata, opened) = batch.take(index) else { continue }
            timelines.setPlaceholder(key, metadata.placeholder, generation: metadata.generation)
            guard let (body, value) = opened else { continue }
            let widget = batch.widgets[index]
            let c = metadata.protectionClass
            guard !locked, custody.lifecycle.isAvailable(c), !cache.contains(widget), cache.admits(body) else {
                body.removeAll()
                continue
            }
            cache.insert(widget, body: body, protectionClass: c, generation: metadata.generation, isOpen: c == .completeUnlessOpen)
            cached += 1
            if let value { decoded[widget] = value }
        }
        return (cached, decoded)
    }
}

/// The class key pairs the store holds, as `KeyCustody.keyPair` gives them until the
/// store's state next changes: taken on the store's thread for the threads of one
/// `prefetchBodies` call, which it waits for.
private struct HeldKeyPairs: @unchecked Sendable {
    private let pairs: [ProtectionClass: [Keybag.Generation: KeyPair]]

    init(_ lifecycle: KeyLifecycle) {
        var pairs: [ProtectionClass: [Keybag.Generation: KeyPair]] = [:]
        for c in ProtectionClass.allCases { pairs[c] = lifecycle.keyPairs(c) }
        self.pairs = pairs
    }

    /// The key pair of class `c`'s key `generation` (class D has one), if held.
    func keyPair(_ c: ProtectionClass, generation: Keybag.Generation) -> KeyPair? {
        pairs[c]?[c == .none ? Keybag.classDGeneration : generation]
    }
}

/// The widgets of one `prefetchBodies` call and what reading each gave: `widgets` is
/// fixed before the threads start, and each slot of `results` is written by the one
/// thread that claimed its index and read on the store's thread once they are done.
private final class BodyBatch<Decoded: Sendable>: @unchecked Sendable {
    /// A file verified (its catalog verdict current), and its body decrypted, in secure
    /// memory, with what `decode` made of it; `nil` where the class key is not held or
    /// the body did not open (`readBody` meets it again and reports it).
    typealias Read = (key: FileDigest, metadata: TimelineMetadata, opened: (body: SecureBytes, decoded: Decoded?)?)

    let widgets: [WidgetID]
    private let reader: SealedFileReader
    private let keyPairs: HeldKeyPairs
    private let decode: @Sendable (UnsafeRawBufferPointer) -> Decoded?
    /// Where the bodies are decrypted: kept together in the cache, they share regions
    /// (`SecureSlab`) rather than mapping one each.
    private let slab = SecureSlab()
    /// What reading each widget's file gave; `nil` where it failed (`readBody` meets the
    /// failure again and reports it) or there is no file.
    private let results: UnsafeMutableBufferPointer<Read?>

    init(
        _ widgets: [WidgetID], reader: SealedFileReader, keyPairs: HeldKeyPairs,
        decode: @escaping @Sendable (UnsafeRawBufferPointer) -> Decoded?
    ) {
        self.widgets = widgets
        self.reader = reader
        self.keyPairs = keyPairs
        self.decode = decode
        results = .allocate(capacity: widgets.count)
        results.initialize(repeating: nil)
    }

    deinit {
        // Every body was cached or zeroed (`take`); what is left is released.
        for index in results.indices { results[index]?.opened?.body.removeAll() }
        results.deinitialize()
        results.deallocate()
    }

    /// Reads and verifies widget `index`'s file as `readBody` does, then decrypts its
    /// body into its slot and decodes it.
    func open(_ index: Int) {
        let widget = widgets[index]
        do throws(StoreError) {
            let key = try reader.indexKey(for: widget)
            guard let (sealed, metadata, _) = try reader.readSealed(key: key, of: widget) else { return }
            let path = "\(reader.directory)/\(key.fileName)"
            try reader.refuseIfRolledBack(key, generation: metadata.generation, file: path)
            guard let pair = keyPairs.keyPair(metadata.protectionClass, generation: metadata.keyGeneration),
                let body = try? TimelineFile.openBody(sealed, classKey: pair, file: path, in: slab)
            else {
                results[index] = (key, metadata, nil)
                return
            }
            let decoded = body.withUnsafeBytes { decode($0) }
            results[index] = (key, metadata, (body, decoded))
        } catch {
            return
        }
    }

    /// What reading widget `index`'s file gave, taken out of its slot.
    func take(_ index: Int) -> Read? {
        // Moved out, not copied: no retain of the slot's references for a copy then released.
        results[index].take()
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
