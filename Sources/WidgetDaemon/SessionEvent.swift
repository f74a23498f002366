/// Why the session monitor locks the device: the session values of
/// `GetStatus.lockedBy` (DESIGN §8).
enum SessionLockReason: String, Sendable, Equatable, CaseIterable {
    /// A watched session's logind `Lock` signal, or its `LockedHint` becoming true.
    case session
    /// logind's `PrepareForSleep(true)`.
    case sleep
    /// The last watched session ended.
    case sessionEnd
}

/// A device change the session monitor asks for.
enum SessionEvent: Sendable, Equatable {
    /// Lock exactly as `Device.Lock` does; with `purgeAtOnce`, classes A and B are purged
    /// now (no class-A grace, open class-B timelines too), as a coming sleep requires.
    case lock(reason: SessionLockReason, purgeAtOnce: Bool = false)
}

/// Whatever turns the session monitor's events into device changes: the daemon, which
/// routes them to its lock path.
///
/// Threading: called on the event loop's thread, from inside the bus's dispatch; the
/// receiver may do anything a loop callback may, except close the monitor.
protocol SessionEvents: AnyObject {
    /// The monitor asks for `event`.
    func report(_ event: SessionEvent)
}
