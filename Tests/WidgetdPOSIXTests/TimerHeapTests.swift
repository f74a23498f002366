import Foundation
import Testing

import WidgetdPOSIX

/// The event loop's timer heap alone, without a loop: order, cancellation, passes.
@Suite struct TimerHeapTests {
    let base = Date(timeIntervalSinceReferenceDate: 1_000_000)

    /// Pops every timer due at `now` in one pass.
    func drain(_ heap: inout TimerHeap<Date, Int>, at now: Date) -> [Int] {
        let pass = heap.pass
        var out: [Int] = []
        while let payload = heap.popDue(now: now, before: pass) { out.append(payload) }
        heap.endPass()
        return out
    }

    @Test func timersComeOutInDeadlineOrderAndEqualDeadlinesInInsertionOrder() {
        var heap = TimerHeap<Date, Int>()
        let offsets = [5.0, 1, 3, 1, 4, 1, 2]
        for (index, offset) in offsets.enumerated() { _ = heap.insert(deadline: base.addingTimeInterval(offset), index) }
        #expect(heap.nextDeadline == base.addingTimeInterval(1))
        #expect(drain(&heap, at: base.addingTimeInterval(10)) == [1, 3, 5, 6, 2, 4, 0])
        #expect(heap.count == 0 && heap.nextDeadline == nil)
    }

    @Test func onlyTimersDueAtNowComeOut() {
        var heap = TimerHeap<Date, Int>()
        _ = heap.insert(deadline: base.addingTimeInterval(1), 1)
        _ = heap.insert(deadline: base.addingTimeInterval(2), 2)
        #expect(drain(&heap, at: base.addingTimeInterval(1)) == [1])
        #expect(heap.nextDeadline == base.addingTimeInterval(2))
    }

    @Test func aCancelledTimerNeverComesOutAndCancellingTwiceDoesNothing() {
        var heap = TimerHeap<Date, Int>()
        let first = heap.insert(deadline: base, 1)
        _ = heap.insert(deadline: base.addingTimeInterval(1), 2)
        heap.remove(first)
        heap.remove(first)
        #expect(heap.count == 1)
        #expect(heap.nextDeadline == base.addingTimeInterval(1))
        #expect(drain(&heap, at: base.addingTimeInterval(5)) == [2])
    }

    @Test func aTimerInsertedDuringAPassWaitsForTheNextPass() {
        var heap = TimerHeap<Date, Int>()
        _ = heap.insert(deadline: base, 1)
        let pass = heap.pass
        #expect(heap.popDue(now: base, before: pass) == 1)
        // Due already, but scheduled during this pass: not this pass's.
        _ = heap.insert(deadline: base.addingTimeInterval(-1), 2)
        #expect(heap.popDue(now: base, before: pass) == nil)
        heap.endPass()
        #expect(drain(&heap, at: base) == [2])
    }

    @Test func manyCancellationsRebuildTheHeapWithoutLosingOrder() {
        var heap = TimerHeap<Date, Int>()
        var ids: [UInt64] = []
        for index in 0..<500 { ids.append(heap.insert(deadline: base.addingTimeInterval(Double((index * 37) % 500)), index)) }
        for (index, id) in ids.enumerated() where index % 5 != 0 { heap.remove(id) }
        #expect(heap.count == 100)
        let kept = drain(&heap, at: base.addingTimeInterval(1000))
        let expected = (0..<500).filter { $0 % 5 == 0 }.sorted { ($0 * 37) % 500 < ($1 * 37) % 500 }
        #expect(kept == expected)
    }
}
