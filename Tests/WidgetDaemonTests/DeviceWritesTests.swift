import Foundation
import Testing

@testable import WidgetDaemon

/// ``DeviceWrites`` runs its turns one at a time, in order, each write off the loop.
@Suite struct DeviceWritesTests {
    @Test func turnsRunInOrderEachAfterTheWriteBeforeItReturned() {
        let scheduler = ManualScheduler(now: Date(timeIntervalSince1970: 1_800_000_000))
        scheduler.holding = [DeviceWrites.queue]
        let writes = DeviceWrites(scheduler: scheduler)
        var log: [String] = []
        writes.take { done in
            log.append("first begins")
            writes.write({ 1 }) { (value: Int) in
                log.append("first wrote \(value)")
                done()
            }
        }
        writes.take { done in
            log.append("second begins")
            done()
        }
        scheduler.run()
        #expect(log == ["first begins"] && writes.isBusy && scheduler.held.count == 1)
        scheduler.releaseHeldWork()
        scheduler.run()
        #expect(log == ["first begins", "first wrote 1", "second begins"] && !writes.isBusy)
    }

    /// Turns done at once (settings left as they were) follow each other in a loop: a
    /// crowd of them waiting behind a write does not grow the stack.
    @Test func aCrowdOfTurnsDoneAtOnceRunsWithoutGrowingTheStack() {
        let scheduler = ManualScheduler(now: Date(timeIntervalSince1970: 1_800_000_000))
        scheduler.holding = [DeviceWrites.queue]
        let writes = DeviceWrites(scheduler: scheduler)
        writes.take { done in writes.write({ () }) { done() } }
        var ran = 0
        for _ in 0..<200_000 { writes.take { done in ran += 1; done() } }
        scheduler.releaseHeldWork()
        scheduler.run()
        #expect(ran == 200_000 && !writes.isBusy)
    }
}
