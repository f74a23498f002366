import FoundationEssentials

/// Pending timers ordered by deadline: a binary min-heap with lazy removal, the
/// ``EventLoop``'s alarm clock.
///
/// Timers with equal deadlines come out in the order they were inserted. A cancelled
/// timer stays in the heap until it reaches the top (its payload is dropped at once);
/// the heap is rebuilt when cancelled ones outnumber the live ones. Measured against
/// swift-collections' `Heap` (docs/ARCHITECTURE.md, "Packages we use"): kept.
///
/// Deadlines are a clock's instants (dates, or monotonic or boot-time instants: the loop
/// keeps one heap per clock). Payloads are the loop's closures; the tests use numbers. Not thread-safe: it lives
/// on the loop's thread. Inlinable, as swift-collections' `Heap` is, so that a user in
/// another module (the benchmark) gets it specialized for its payload too.
package struct TimerHeap<Deadline: Comparable, Payload> {
    @usableFromInline
    struct Item {
        @usableFromInline let deadline: Deadline
        @usableFromInline let id: UInt64
        @inlinable init(deadline: Deadline, id: UInt64) {
            self.deadline = deadline
            self.id = id
        }
    }

    @usableFromInline var heap: [Item] = []
    @usableFromInline var payloads: [UInt64: Payload] = [:]
    @usableFromInline var nextID: UInt64 = 1
    /// Due timers inserted during the current pass, set aside until ``endPass()``.
    @usableFromInline var deferred: [Item] = []

    /// An empty heap.
    @inlinable
    package init() {}

    /// The number of timers not yet run or cancelled.
    @inlinable
    package var count: Int { payloads.count }

    /// Adds a timer due at `deadline`; returns its identifier (never 0, never reused).
    @inlinable
    package mutating func insert(deadline: Deadline, _ payload: Payload) -> UInt64 {
        let id = nextID
        nextID += 1
        payloads[id] = payload
        heap.append(Item(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    /// Cancels a timer; one that already ran or was cancelled is ignored.
    @inlinable
    package mutating func remove(_ id: UInt64) {
        payloads[id] = nil
        // Cancelled items stay in the heap until they surface; rebuild if they pile up.
        if heap.count > 64, heap.count > payloads.count * 2 {
            heap.removeAll { payloads[$0.id] == nil }
            heap.sort(by: precedes)
        }
    }

    /// The earliest deadline of a live timer.
    @inlinable
    package var nextDeadline: Deadline? {
        mutating get {
            dropCancelled()
            return heap.first?.deadline
        }
    }

    /// A mark separating the timers that exist now from those inserted later.
    @inlinable
    package var pass: UInt64 { nextID }

    /// Removes and returns the payload of the earliest timer due at `now` that was
    /// inserted before `pass`.
    ///
    /// A due timer inserted during the pass is set aside rather than ending the pass:
    /// otherwise a timer that keeps rescheduling itself for the past (indexing in
    /// slices) would sit at the top of the heap and starve every other due timer (the
    /// watchdog's ping, the idle-connection sweep) for as long as it went on.
    @inlinable
    package mutating func popDue(now: Deadline, before pass: UInt64) -> Payload? {
        while let first = heap.first, first.deadline <= now {
            popFirst()
            guard let payload = payloads[first.id] else { continue }
            if first.id >= pass {
                deferred.append(first)
                continue
            }
            payloads[first.id] = nil
            return payload
        }
        return nil
    }

    /// Puts back the timers set aside during a pass.
    @inlinable
    package mutating func endPass() {
        for item in deferred {
            heap.append(item)
            siftUp(heap.count - 1)
        }
        deferred.removeAll(keepingCapacity: true)
    }

    @inlinable
    mutating func dropCancelled() {
        while let first = heap.first, payloads[first.id] == nil { popFirst() }
    }

    @inlinable
    mutating func popFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    @inlinable
    func precedes(_ a: Item, _ b: Item) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id)
    }

    @inlinable
    mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable
    mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, precedes(heap[left + 1], heap[left]) { smallest = left + 1 }
            guard precedes(heap[smallest], heap[parent]) else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
