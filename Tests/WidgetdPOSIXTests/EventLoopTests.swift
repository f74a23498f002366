import Foundation
import Glibc
import Testing
@testable import WidgetdPOSIX

@Suite struct EventLoopTests {
    @Test func runsTimersInDeadlineOrderAndSkipsCancelledOnes() throws {
        let loop = try EventLoop()
        var order: [Int] = []
        let base = Date(timeIntervalSinceNow: -10)
        loop.schedule(at: base.addingTimeInterval(3)) { order.append(3) }
        loop.schedule(at: base.addingTimeInterval(1)) { order.append(1) }
        let cancelled = loop.schedule(at: base.addingTimeInterval(2)) { order.append(2) }
        loop.schedule(at: base.addingTimeInterval(4)) { loop.stop() }
        loop.cancel(cancelled)
        try loop.run()
        #expect(order == [1, 3])
    }

    @Test func timersScheduledForTheSameDeadlineRunInSchedulingOrder() throws {
        let loop = try EventLoop()
        var order: [Int] = []
        let deadline = Date.distantPast
        for index in 0..<5 { loop.schedule(at: deadline) { order.append(index) } }
        loop.schedule(at: deadline) { loop.stop() }
        try loop.run()
        #expect(order == [0, 1, 2, 3, 4])
    }

    @Test func executeRunsWorkHandedOverFromAnotherThread() throws {
        let loop = try EventLoop()
        /// Written on the loop's thread, read after the loop returned on the same thread.
        final class Flag: @unchecked Sendable { var value = false }
        let ranOnLoop = Flag()
        let loopThread = pthread_self()
        let watchdog = loop.schedule(at: Date(timeIntervalSinceNow: 10)) { loop.stop() }
        Thread.detachNewThread {
            loop.execute {
                // Runs on the loop's thread, not the one that handed it over.
                ranOnLoop.value = pthread_equal(pthread_self(), loopThread) != 0
                loop.stop()
            }
        }
        try loop.run()
        loop.cancel(watchdog)
        #expect(ranOnLoop.value)
    }

    @Test func callsTheHandlerOfAReadableDescriptorUntilUnwatched() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var calls = 0
        var watch: WatchID?
        watch = try loop.watch(FileDescriptor(rawValue: fds[0]), for: .readable) { events in
            calls += 1
            #expect(events.contains(.readable))
            loop.unwatch(watch!)
            loop.schedule(at: .distantPast) { loop.stop() }
        }
        _ = write(fds[1], "x", 1)
        try loop.run()
        #expect(calls == 1)
    }

    /// A handler object (what connections are) is held by the loop from `watch` to
    /// `unwatch`, survives unwatching itself during its own call, and is released after.
    @Test func holdsAHandlerObjectUntilItIsUnwatched() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        final class Calls { var count = 0; var aliveAfterUnwatch = false }
        final class Handler: IOEventHandler {
            let loop: EventLoop
            let calls: Calls
            var watch: WatchID?
            init(loop: EventLoop, calls: Calls) { self.loop = loop; self.calls = calls }
            func handleIOEvents(_ events: IOEvents) {
                calls.count += 1
                loop.unwatch(watch!)
                // The loop's reference is gone; this call still runs on a live object.
                calls.aliveAfterUnwatch = watch != nil
                loop.schedule(at: .distantPast) { [loop] in loop.stop() }
            }
        }
        let calls = Calls()
        weak var held: Handler?
        do {
            let handler = Handler(loop: loop, calls: calls)
            handler.watch = try loop.watch(FileDescriptor(rawValue: fds[0]), for: .readable, notifying: handler)
            held = handler
        }
        #expect(held != nil)
        _ = write(fds[1], "x", 1)
        try loop.run()
        #expect(calls.count == 1 && calls.aliveAfterUnwatch)
        #expect(held == nil)
    }

    @Test func reportsWritableOnlyWhenAsked() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        final class Record { var seen: [IOEvents] = []; var sawNothingFirst = false }
        let record = Record()
        let watch = try loop.watch(FileDescriptor(rawValue: fds[0]), for: []) { events in
            record.seen.append(events)
            loop.stop()
        }
        defer { loop.unwatch(watch) }
        loop.schedule(at: Date(timeIntervalSinceNow: 10)) { loop.stop() }
        // Work handed over arrives through epoll_wait, which would also have reported
        // the socket had it been watched for anything.
        let bound = LoopBound(record, loop: loop)
        loop.execute {
            bound.value.sawNothingFirst = bound.value.seen.isEmpty
            try? loop.update(watch, interest: .writable)
        }
        try loop.run()
        #expect(record.sawNothingFirst)
        #expect(record.seen == [.writable])
    }

    @Test func aTimerReschedulingItselfForThePastDoesNotStarveDescriptors() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var ticks = 0
        func tick() {
            ticks += 1
            if ticks < 100_000 { loop.schedule(at: .distantPast) { tick() } } else { loop.stop() }
        }
        loop.schedule(at: .distantPast) { tick() }
        let watch = try loop.watch(FileDescriptor(rawValue: fds[0]), for: .readable) { _ in loop.stop() }
        defer { loop.unwatch(watch) }
        _ = write(fds[1], "x", 1)
        try loop.run()
        #expect(ticks < 100)
    }

    @Test func aTimerReschedulingItselfForThePastDoesNotStarveOtherDueTimers() throws {
        let loop = try EventLoop()
        var ticks = 0
        func tick() {
            ticks += 1
            if ticks < 100_000 { loop.schedule(at: .distantPast) { tick() } } else { loop.stop() }
        }
        loop.schedule(at: .distantPast) { tick() }
        // Due as well, but later than every tick's deadline: it must still run soon.
        loop.schedule(at: Date(timeIntervalSinceNow: -1)) { loop.stop() }
        try loop.run()
        #expect(ticks < 100)
    }
}

@Suite struct SignalsTests {
    @Test func deliversABlockedSignalOnTheLoop() throws {
        try Signals.blockDaemonSignals()
        let loop = try EventLoop()
        var received: [Signals.Signal] = []
        let signals = try Signals(loop: loop) { signal in
            received.append(signal)
            loop.stop()
        }
        defer { signals.close() }
        loop.schedule(at: Date(timeIntervalSinceNow: 10)) { loop.stop() }
        // raise() targets this thread, where the signal is blocked: it waits in the signalfd.
        raise(SIGHUP)
        try loop.run()
        #expect(received == [.hangUp])
    }
}
