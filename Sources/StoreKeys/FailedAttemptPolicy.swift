import FoundationEssentials

/// Apple's escalating delay after wrong passcodes (DESIGN §3).
///
/// | failed attempts | wait before the next one |
/// |---|---|
/// | 1–4 | none |
/// | 5 | 1 minute |
/// | 6 | 5 minutes |
/// | 7–8 | 15 minutes |
/// | 9 and more | 1 hour |
package enum FailedAttemptPolicy {
    /// Seconds to wait after the `failures`-th consecutive failure.
    package static func delay(afterFailures failures: Int) -> Double {
        switch failures {
        case ...4: 0
        case 5: 60
        case 6: 5 * 60
        case 7...8: 15 * 60
        default: 60 * 60
        }
    }

    /// Seconds from `now` until the next attempt is allowed, or `nil` if it is allowed now.
    ///
    /// A clock set back after a failure cannot stretch the wait beyond the delay itself.
    package static func retryAfter(failures: Int, lastFailure: Date?, now: Date) -> Double? {
        guard let lastFailure else { return nil }
        let delay = delay(afterFailures: failures)
        guard delay > 0 else { return nil }
        let remaining = min(delay, lastFailure.timeIntervalSince(now) + delay)
        return remaining > 0 ? remaining : nil
    }
}
