/// At most ``burst`` log lines per ``interval`` for one kind of event: those beyond it are
/// counted, and the next line logged says how many were left out. What an unprivileged
/// client can cause at will (a refused signal) must not fill the journal.
///
/// Pure: the caller passes the time, on the monotonic clock (a wall clock set back
/// would start a new interval at will).
struct LogRateLimit: Sendable, Equatable {
    /// Lines allowed per interval.
    let burst: Int
    /// The interval, in seconds.
    let interval: Double
    private var windowStart: Double?
    private var logged = 0
    private var leftOut = 0

    init(burst: Int, interval: Double) {
        self.burst = burst
        self.interval = interval
    }

    /// Whether to log a line at `now` (seconds on any clock): `nil` to leave it out, else
    /// how many lines were left out since the last one logged.
    mutating func admit(at now: Double) -> Int? {
        // A clock set back starts a new interval rather than silencing the log.
        if let start = windowStart, now >= start, now < start + interval {
            guard logged < burst else {
                leftOut += 1
                return nil
            }
        } else {
            windowStart = now
            logged = 0
        }
        logged += 1
        defer { leftOut = 0 }
        return leftOut
    }
}
