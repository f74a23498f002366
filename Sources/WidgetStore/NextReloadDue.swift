import FoundationEssentials

/// The earliest unannounced reload due after a given instant, for the wake timer: a
/// view of the index's entry table (`TimelineIndex`), which computes an answer by one
/// pass over its entries and tells this cache of every entry that joins or leaves the
/// unannounced ones.
///
/// It keeps the last answer and the instant it was asked for: it stays the answer for
/// any later instant before it, until an entry changes. Without it, every reschedule
/// (each write, lock, unlock) would pass over every stored timeline.
struct NextReloadDue {
    /// `timeIntervalSinceReferenceDate`s of the instant asked and its answer.
    private var earliest: (asked: Double, answer: Double?)?

    /// The known answer for `now`, or `nil` if it must be computed (`.some(nil)`: none due).
    func answer(after now: Double) -> Double?? {
        // Nothing lies between the instant last asked and its answer, so the answer
        // holds until `now` reaches it.
        guard let known = earliest, now >= known.asked, known.answer.map({ now < $0 }) ?? true else { return nil }
        return .some(known.answer)
    }

    /// Remembers the answer computed for `now`.
    mutating func remember(_ answer: Double?, after now: Double) { earliest = (now, answer) }

    /// An entry joined the unannounced ones with reload due `due`: it may be the new earliest.
    mutating func added(_ due: Double) {
        guard let known = earliest, due > known.asked else { return }
        if known.answer.map({ due < $0 }) ?? true { earliest = (known.asked, due) }
    }

    /// An entry left the unannounced ones: if it was the earliest, ask again.
    mutating func dropped(_ due: Double) {
        guard due == earliest?.answer else { return }
        earliest = nil
    }
}
