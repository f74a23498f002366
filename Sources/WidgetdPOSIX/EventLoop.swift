import CSystemShims
import FoundationEssentials
import Glibc
import Synchronization

/// Identifies a timer scheduled on an ``EventLoop``.
package struct TimerID: Hashable, Sendable {
    fileprivate let value: UInt64
    /// The heap it is in: timers on different clocks are numbered apart.
    fileprivate let clock: UInt8
}

/// Identifies a file descriptor watched by an ``EventLoop``.
package struct WatchID: Hashable, Sendable {
    fileprivate let value: UInt64
}

/// What a watched descriptor is ready for.
package struct IOEvents: OptionSet, Sendable {
    /// The bits.
    package let rawValue: UInt32
    /// Wraps bits.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Data can be read (or the peer closed its end).
    package static let readable = IOEvents(rawValue: 1 << 0)
    /// Data can be written.
    package static let writable = IOEvents(rawValue: 1 << 1)
    /// The peer hung up or the descriptor is in error: close it.
    package static let hangup = IOEvents(rawValue: 1 << 2)
}

/// What a watched descriptor's readiness is delivered to.
///
/// An object rather than a closure for the descriptors that are busy (client
/// connections): the loop calls it directly, where a closure capturing its owner
/// `unowned` cost a check-and-retain of the owner, and a release, on every event. The
/// loop holds the handler from ``EventLoop/watch(_:for:notifying:)`` until
/// ``EventLoop/unwatch(_:)``. Called on the loop's thread.
package protocol IOEventHandler: AnyObject {
    /// The descriptor is ready for `events`.
    func handleIOEvents(_ events: IOEvents)
}

/// A closure as an ``IOEventHandler``, for the descriptors that are not busy.
private final class ClosureIOEventHandler: IOEventHandler {
    let body: (IOEvents) -> Void
    init(_ body: @escaping (IOEvents) -> Void) { self.body = body }
    func handleIOEvents(_ events: IOEvents) { body(events) }
}

/// The daemon's single-threaded event loop: epoll over file descriptors, timers on three
/// clocks, and a thread-safe way to hand work back to the loop.
///
/// Timers (DESIGN §8): a duration runs on the monotonic clock, which nobody sets; a
/// duration that counts sleep on the boot-time clock (a timerfd wakes the loop when the
/// machine resumes past it); a date on the wall clock, through a timerfd armed
/// `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET`, so that a step forward runs what became
/// due at once and any setting of the clock is reported (``onWallClockSet(_:)``) for
/// whoever derived timers from dates to re-evaluate them.
///
/// Threading: every method except ``execute(_:)`` must be called on the thread running
/// ``run()``. The loop is `Sendable` only so that other threads can reach `execute`,
/// which is how results computed elsewhere (an Argon2id hash on a background queue)
/// come back to the loop's thread.
package final class EventLoop: @unchecked Sendable {
    private let epoll: FileDescriptor
    /// An eventfd that `execute` bumps to wake `epoll_wait`.
    private let wakeUp: FileDescriptor
    /// The epoll token of the wake-up eventfd; a watch's token is never 0 (its
    /// generation, in the high half, starts at 1).
    private static let wakeUpToken: UInt64 = 0
    /// The epoll tokens of the wall-clock and boot-time timerfds (generation 0, like the
    /// wake-up's, so no watch's token).
    private static let wallAlarmToken: UInt64 = 1
    private static let bootAlarmToken: UInt64 = 2
    /// timerfds on `CLOCK_REALTIME` and `CLOCK_BOOTTIME`, armed for the earliest timer of
    /// their clock while the loop reads the kernel's clocks.
    let wallAlarm: FileDescriptor
    let bootAlarm: FileDescriptor
    /// What each timerfd is armed for now (`nil`: disarmed, or it fired).
    private var wallAlarmArmed: Date?
    private var bootAlarmArmed: BootInstant?

    private struct Watch {
        let fd: FileDescriptor
        /// The slot in the low 32 bits, a generation in the high ones: a token left in an
        /// `epoll_wait` batch by a descriptor unwatched earlier in that batch never
        /// matches a watch that reuses its slot.
        let token: UInt64
        var interest: IOEvents
        let handler: any IOEventHandler
    }

    /// Watches by slot: an event finds its handler by index, not by hashing, which
    /// mattered once a cached read cost a few microseconds in all.
    private var watches: [Watch?] = []
    private var freeSlots: [Int] = []
    private var nextGeneration: UInt64 = 1
    private var wallTimers = TimerHeap<Date, () -> Void>()
    private var monotonicTimers = TimerHeap<MonotonicInstant, () -> Void>()
    private var bootTimers = TimerHeap<BootInstant, () -> Void>()
    private var wallClockSetHandlers: [() -> Void] = []
    private var isStopped = false
    private let handedOver = Mutex<[@Sendable () -> Void]>([])
    /// The three clocks as a test moves them by hand; nil when the loop reads the
    /// kernel's clocks, one at a time.
    private let injectedClock: (@Sendable () -> ClockReading)?
    /// Whether the loop reads the kernel's clocks, so that the timerfds mean something.
    private var readsKernelClocks: Bool { injectedClock == nil }
    /// This turn's reading of each clock, taken when first needed in the turn (nil: not
    /// yet). A clock read costs 50–90 ns here (the vDSO on a virtual machine's TSC), six
    /// a turn would be a few per cent of a cached read, and a turn that answers one
    /// request needs few of them, so no clock is read before something asks for it.
    private var turnMonotonic: MonotonicInstant?
    private var turnWall: Date?
    private var turnBoot: BootInstant?
    /// The thread running ``run()`` (0 when none), so loop-only state can be checked.
    private let runningThread = Atomic<UInt>(0)

    /// Creates the epoll instance, the wake-up eventfd and the timerfds, on the kernel's clocks.
    package convenience init() throws(SystemError) {
        try self.init(clock: { ClockReading.system() }, readsKernelClocks: true)
    }

    /// Creates the loop on an injected clock: a test passes readings it moves by hand
    /// (one clock alone, if it likes), then wakes the loop (``execute(_:)``) so that the
    /// timers now due run. The timerfds stay disarmed: they follow the kernel's clocks.
    package convenience init(clock: @escaping @Sendable () -> ClockReading) throws(SystemError) {
        try self.init(clock: clock, readsKernelClocks: false)
    }

    private init(clock: @escaping @Sendable () -> ClockReading, readsKernelClocks: Bool) throws(SystemError) {
        injectedClock = readsKernelClocks ? nil : clock
        let reading = clock()
        turnWall = reading.wall
        turnMonotonic = reading.monotonic
        turnBoot = reading.boottime
        var opened: [FileDescriptor] = []
        func open(_ name: String, _ body: () -> Int32) throws(SystemError) -> FileDescriptor {
            let fd = FileDescriptor(rawValue: try Syscall.retrying(name, body))
            opened.append(fd)
            return fd
        }
        do {
            let epoll = try open("epoll_create1") { shim_epoll_create() }
            let wakeUp = try open("eventfd") { shim_eventfd_create() }
            let wallAlarm = try open("timerfd_create") { shim_timerfd_create(Int32(shim_clock_wall.rawValue)) }
            let bootAlarm = try open("timerfd_create") { shim_timerfd_create(Int32(shim_clock_boottime.rawValue)) }
            for (fd, token) in [(wakeUp, Self.wakeUpToken), (wallAlarm, Self.wallAlarmToken), (bootAlarm, Self.bootAlarmToken)] {
                try Syscall.retrying("epoll_ctl") {
                    shim_epoll_ctl(epoll.rawValue, shim_EPOLL_CTL_ADD, fd.rawValue, shim_EPOLLIN, token)
                }
            }
            self.epoll = epoll
            self.wakeUp = wakeUp
            self.wallAlarm = wallAlarm
            self.bootAlarm = bootAlarm
        } catch {
            for fd in opened.reversed() { Syscall.close(fd) }
            throw error
        }
    }

    deinit {
        Syscall.close(bootAlarm)
        Syscall.close(wallAlarm)
        Syscall.close(wakeUp)
        Syscall.close(epoll)
    }

    // MARK: Running

    /// Runs timers, descriptor callbacks and handed-over work until ``stop()``.
    ///
    /// Throws only when `epoll_wait` itself fails, which means the loop cannot go on.
    package func run() throws(SystemError) {
        isStopped = false
        runningThread.store(UInt(pthread_self()), ordering: .releasing)
        defer { runningThread.store(0, ordering: .releasing) }
        var tokens = [UInt64](repeating: 0, count: 64)
        var masks = [UInt32](repeating: 0, count: 64)
        while !isStopped {
            beginTurn()
            // Read the clocks again only if a timer ran (and took time).
            if runDueTimers() { beginTurn() }
            if isStopped { break }
            armAlarms()
            let timeout = timeoutMilliseconds()
            let count = try tokens.withUnsafeMutableBufferPointer { tokenBuffer throws(SystemError) in
                try masks.withUnsafeMutableBufferPointer { maskBuffer throws(SystemError) in
                    try Syscall.retrying("epoll_wait") {
                        shim_epoll_wait(epoll.rawValue, tokenBuffer.baseAddress, maskBuffer.baseAddress, 64, timeout)
                    }
                }
            }
            // What the descriptors report happened after the wait, not before it.
            if count > 0 { beginTurn() }
            for index in 0..<Int(count) {
                dispatch(token: tokens[index], mask: masks[index])
                if isStopped { break }
            }
        }
    }

    /// The wall clock's time now (a clock read; ``turnTime`` is one per turn at most).
    package var now: Date {
        if let injectedClock { return injectedClock().wall }
        return Self.readWall()
    }

    /// The three clocks now (three clock reads).
    package var clocks: ClockReading { injectedClock?() ?? .system() }

    /// The wall clock for this turn of the loop: read when first asked after the loop woke
    /// (or after its timers ran), then the same for the rest of the turn, so a handler can
    /// stamp an event without a clock read of its own. A date, for what is shown;
    /// durations use ``turnInstant``.
    package var turnTime: Date {
        if let turnWall { return turnWall }
        if readInjectedClock() { return turnWall! }
        let wall = Self.readWall()
        turnWall = wall
        return wall
    }

    /// The monotonic clock for this turn of the loop (as ``turnTime``).
    package var turnInstant: MonotonicInstant {
        if let turnMonotonic { return turnMonotonic }
        if readInjectedClock() { return turnMonotonic! }
        let instant = Self.readMonotonic()
        turnMonotonic = instant
        return instant
    }

    /// The boot-time clock for this turn of the loop (as ``turnTime``).
    private var turnBootInstant: BootInstant {
        if let turnBoot { return turnBoot }
        if readInjectedClock() { return turnBoot! }
        let instant = BootInstant(seconds: shim_clock_seconds(Int32(shim_clock_boottime.rawValue)))
        turnBoot = instant
        return instant
    }

    /// A new turn: each clock is read again when next needed.
    private func beginTurn() {
        turnMonotonic = nil
        turnWall = nil
        turnBoot = nil
    }

    /// With an injected clock, takes the turn's three readings from one call, so that a
    /// turn sees the clocks as the test set them together; false on the kernel's clocks.
    private func readInjectedClock() -> Bool {
        guard let injectedClock else { return false }
        let reading = injectedClock()
        turnWall = reading.wall
        turnMonotonic = reading.monotonic
        turnBoot = reading.boottime
        return true
    }

    private static func readWall() -> Date {
        Date(timeIntervalSince1970: shim_clock_seconds(Int32(shim_clock_wall.rawValue)))
    }

    private static func readMonotonic() -> MonotonicInstant {
        MonotonicInstant(seconds: shim_clock_seconds(Int32(shim_clock_monotonic.rawValue)))
    }

    /// Whether the caller is on the thread running the loop.
    package var isOnLoopThread: Bool {
        runningThread.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Makes ``run()`` return after the callback that is running now.
    package func stop() {
        isStopped = true
    }

    private func dispatch(token: UInt64, mask: UInt32) {
        if token == Self.wakeUpToken {
            _ = shim_eventfd_drain(wakeUp.rawValue)
            let work = handedOver.withLock { pending in
                defer { pending.removeAll() }
                return pending
            }
            for body in work { body() }
            return
        }
        if token == Self.wallAlarmToken || token == Self.bootAlarmToken {
            alarmRang(token)
            return
        }
        // A watch removed by an earlier callback of this batch is skipped. The handler is
        // held for the call (one retain): it may unwatch itself and be released by its owner.
        guard let slot = slot(of: token), let handler = watches[slot]?.handler else { return }
        var events: IOEvents = []
        if mask & shim_EPOLLIN != 0 { events.insert(.readable) }
        if mask & shim_EPOLLOUT != 0 { events.insert(.writable) }
        if mask & (shim_EPOLLHUP | shim_EPOLLERR) != 0 { events.insert(.hangup) }
        handler.handleIOEvents(events)
    }

    // MARK: Descriptors

    /// Calls `handler` on the loop whenever `fd` is ready for `interest`.
    ///
    /// Readiness is level-triggered: a handler that leaves data unread is called again.
    /// The loop never closes `fd`; call ``unwatch(_:)`` before closing it.
    package func watch(
        _ fd: FileDescriptor, for interest: IOEvents, handler: @escaping (IOEvents) -> Void
    ) throws(SystemError) -> WatchID {
        try watch(fd, for: interest, notifying: ClosureIOEventHandler(handler))
    }

    /// Calls `handler` on the loop whenever `fd` is ready for `interest`, as
    /// ``watch(_:for:handler:)`` does; the loop holds `handler` until ``unwatch(_:)``,
    /// so an owner that holds the loop must unwatch before it can be released.
    package func watch(
        _ fd: FileDescriptor, for interest: IOEvents, notifying handler: any IOEventHandler
    ) throws(SystemError) -> WatchID {
        let slot = freeSlots.popLast() ?? watches.count
        let token = nextGeneration << 32 | UInt64(slot)
        try Syscall.retrying("epoll_ctl") {
            shim_epoll_ctl(epoll.rawValue, shim_EPOLL_CTL_ADD, fd.rawValue, Self.mask(for: interest), token)
        }
        // 32 bits of generation, never 0: wrapping after 2^32 watches stays off the wake-up token.
        nextGeneration = nextGeneration == 0xFFFF_FFFF ? 1 : nextGeneration + 1
        let watch = Watch(fd: fd, token: token, interest: interest, handler: handler)
        if slot == watches.count { watches.append(watch) } else { watches[slot] = watch }
        return WatchID(value: token)
    }

    /// Changes what a watched descriptor is watched for; no system call when it is
    /// watched for that already.
    package func update(_ id: WatchID, interest: IOEvents) throws(SystemError) {
        guard let slot = slot(of: id.value), let watch = watches[slot], watch.interest != interest else { return }
        try Syscall.retrying("epoll_ctl") {
            shim_epoll_ctl(epoll.rawValue, shim_EPOLL_CTL_MOD, watch.fd.rawValue, Self.mask(for: interest), id.value)
        }
        watches[slot]?.interest = interest
    }

    /// Stops watching a descriptor; its handler is not called again.
    package func unwatch(_ id: WatchID) {
        guard let slot = slot(of: id.value), let watch = watches[slot] else { return }
        watches[slot] = nil
        freeSlots.append(slot)
        // Fails only if the fd is already closed, in which case epoll dropped it itself.
        _ = shim_epoll_ctl(epoll.rawValue, shim_EPOLL_CTL_DEL, watch.fd.rawValue, 0, 0)
    }

    /// The slot of a live watch with this token, if there is one.
    private func slot(of token: UInt64) -> Int? {
        let slot = Int(truncatingIfNeeded: token & 0xFFFF_FFFF)
        guard slot < watches.count, watches[slot]?.token == token else { return nil }
        return slot
    }

    private static func mask(for interest: IOEvents) -> UInt32 {
        var mask: UInt32 = 0
        // RDHUP only with IN: reported on its own, level-triggered, it would spin the
        // loop while a connection deliberately stops reading.
        if interest.contains(.readable) { mask |= shim_EPOLLIN | shim_EPOLLRDHUP }
        if interest.contains(.writable) { mask |= shim_EPOLLOUT }
        return mask
    }

    // MARK: Timers

    private static let wallClock: UInt8 = 0
    private static let monotonicClock: UInt8 = 1
    private static let bootClock: UInt8 = 2

    /// Runs `body` on the loop at or soon after `deadline`, on that deadline's clock.
    ///
    /// A deadline in the past runs on the next turn of the loop. The logic that decides
    /// takes times as parameters; this is only the alarm clock that calls it.
    @discardableResult
    package func schedule(at deadline: TimerDeadline, _ body: @escaping () -> Void) -> TimerID {
        switch deadline {
        case .wall(let date): TimerID(value: wallTimers.insert(deadline: date, body), clock: Self.wallClock)
        case .monotonic(let instant):
            TimerID(value: monotonicTimers.insert(deadline: instant, body), clock: Self.monotonicClock)
        case .boottime(let instant): TimerID(value: bootTimers.insert(deadline: instant, body), clock: Self.bootClock)
        }
    }

    /// Runs `body` on the loop when the wall clock reaches the date `deadline`, however
    /// it gets there (by running, or by being set).
    @discardableResult
    package func schedule(at deadline: Date, _ body: @escaping () -> Void) -> TimerID {
        schedule(at: .wall(deadline), body)
    }

    /// Runs `body` on the loop `seconds` from now on the monotonic clock: a duration,
    /// which setting the wall clock neither shortens nor stretches.
    @discardableResult
    package func schedule(after seconds: Double, _ body: @escaping () -> Void) -> TimerID {
        let now = injectedClock?().monotonic ?? Self.readMonotonic()
        return schedule(at: .monotonic(now.addingTimeInterval(seconds)), body)
    }

    /// Cancels a timer; cancelling one that already ran or was cancelled does nothing.
    package func cancel(_ timer: TimerID) {
        switch timer.clock {
        case Self.wallClock: wallTimers.remove(timer.value)
        case Self.monotonicClock: monotonicTimers.remove(timer.value)
        default: bootTimers.remove(timer.value)
        }
    }

    /// Calls `body` on the loop each time the wall clock is set (the kernel reports it
    /// through the wall-clock timerfd, `ECANCELED`): whoever chose a wall-clock timer
    /// from dates (which entry is current, which comes next) chooses again. Timers at
    /// dates need nothing: they are compared with the wall clock on every turn.
    package func onWallClockSet(_ body: @escaping () -> Void) {
        wallClockSetHandlers.append(body)
    }

    /// The wall clock was set: runs the ``onWallClockSet(_:)`` handlers; the next turn
    /// runs the dated timers now due and re-arms the timerfd.
    func wallClockWasSet() {
        wallAlarmArmed = nil
        for body in wallClockSetHandlers { body() }
    }

    /// Runs the timers due this turn that existed when the pass began: a timer that
    /// schedules another for a past deadline must not keep the loop from its descriptors.
    /// Returns whether any ran.
    ///
    /// A clock is read only when a timer of its own may be due: the wall and boot-time
    /// timers not at all while their timerfd is armed for the earliest of them, since
    /// the kernel then wakes the loop when one falls due (``alarmRang(_:)`` disarms it,
    /// so the next turn reads the clock and runs them).
    private func runDueTimers() -> Bool {
        // Each heap is reached through a key path, never held `inout` across a timer's
        // body: the body may schedule or cancel timers of the same heap.
        var ran = false
        func drain<Deadline>(_ timers: ReferenceWritableKeyPath<EventLoop, TimerHeap<Deadline, () -> Void>>, at now: Deadline) {
            let pass = self[keyPath: timers].pass
            while !isStopped, let body = self[keyPath: timers].popDue(now: now, before: pass) {
                ran = true
                body()
            }
            self[keyPath: timers].endPass()
        }
        if monotonicTimers.nextDeadline != nil { drain(\.monotonicTimers, at: turnInstant) }
        if !bootAlarmCovers { drain(\.bootTimers, at: turnBootInstant) }
        if !wallAlarmCovers { drain(\.wallTimers, at: turnTime) }
        return ran
    }

    /// Whether the boot-time timerfd will wake the loop for the earliest boot-time timer
    /// (or there is none), so that the epoll timeout need not, nor the clock be read.
    private var bootAlarmCovers: Bool {
        guard let next = bootTimers.nextDeadline else { return true }
        return readsKernelClocks && bootAlarmArmed == next
    }

    /// Whether the wall-clock timerfd will wake the loop for the earliest dated timer
    /// (or there is none), as ``bootAlarmCovers``.
    private var wallAlarmCovers: Bool {
        guard let next = wallTimers.nextDeadline else { return true }
        return readsKernelClocks && wallAlarmArmed == next
    }

    /// The epoll timeout: until the earliest timer that no armed timerfd wakes the loop
    /// for (-1, none).
    private func timeoutMilliseconds() -> Int32 {
        var next: Double?
        func consider(_ wait: Double) { next = Swift.min(next ?? wait, wait) }
        if let deadline = monotonicTimers.nextDeadline { consider(deadline.timeIntervalSince(turnInstant)) }
        if !bootAlarmCovers, let deadline = bootTimers.nextDeadline { consider(deadline.timeIntervalSince(turnBootInstant)) }
        if !wallAlarmCovers, let deadline = wallTimers.nextDeadline { consider(deadline.timeIntervalSince(turnTime)) }
        guard let next else { return -1 }
        let milliseconds = (next * 1000).rounded(.up)
        if milliseconds <= 0 { return 0 }
        return Int32(min(milliseconds, Double(Int32.max)))
    }

    /// The latest date the wall-clock timerfd is armed for when no dated timer is
    /// pending: armed all the same, so that a setting of the clock is reported.
    private static let farFuture = Date(timeIntervalSince1970: 253_402_300_799)

    /// Arms the timerfds for the earliest timer of their clocks, on the kernel's clocks:
    /// the epoll timeout runs on the monotonic clock, which neither a step of the wall
    /// clock nor a sleep moves.
    private func armAlarms() {
        guard readsKernelClocks else { return }
        let wallNext = wallTimers.nextDeadline ?? Self.farFuture
        if wallAlarmArmed != wallNext {
            // Failure leaves the epoll timeout, which covers dates too, to wake the loop.
            if shim_timerfd_arm(wallAlarm.rawValue, wallNext.timeIntervalSince1970, 1) == 0 { wallAlarmArmed = wallNext }
        }
        let bootNext = bootTimers.nextDeadline
        if bootAlarmArmed != bootNext {
            if shim_timerfd_arm(bootAlarm.rawValue, bootNext?.seconds ?? -1, 0) == 0 { bootAlarmArmed = bootNext }
        }
    }

    /// A timerfd is readable: its timer expired (the next turn runs what is due), or, for
    /// the wall clock's, the clock was set.
    private func alarmRang(_ token: UInt64) {
        if token == Self.bootAlarmToken {
            _ = shim_timerfd_drain(bootAlarm.rawValue)
            bootAlarmArmed = nil
            return
        }
        switch shim_timerfd_drain(wallAlarm.rawValue) {
        case 2: wallClockWasSet()
        default: wallAlarmArmed = nil
        }
    }

    // MARK: Handing work to the loop

    /// Runs `body` on the loop's thread soon. Safe to call from any thread.
    package func execute(_ body: @escaping @Sendable () -> Void) {
        handedOver.withLock { $0.append(body) }
        // Fails only if the eventfd is gone, i.e. the loop was released.
        _ = shim_eventfd_signal(wakeUp.rawValue)
    }
}

/// A value that belongs to the event loop's thread, wrapped so that a closure handed
/// to ``EventLoop/execute(_:)`` can carry it back there.
///
/// Sending the wrapper to another thread is allowed; touching the value anywhere but on
/// the loop is not, and traps.
package struct LoopBound<Value>: @unchecked Sendable {
    private let loop: EventLoop
    private let wrapped: Value

    /// Wraps `value`, which belongs to `loop`'s thread.
    package init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        self.wrapped = value
    }

    /// The value; only on the loop's thread.
    package var value: Value {
        precondition(loop.isOnLoopThread, "a loop-bound value was used off the event loop's thread")
        return wrapped
    }
}
