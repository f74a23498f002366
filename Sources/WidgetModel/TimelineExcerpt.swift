import FoundationEssentials
import StrictJSON

/// What a presentation reads of a timeline: every entry's date, the reload policy, and
/// in full only the entry current at one instant. `PresentationRules` looks at no other
/// entry's fields: the dates give the current entry, `validUntil` and the reload date.
///
/// Decoding a stored body this way (``decode(from:at:limits:)``) leaves out the other
/// entries' fields, most of a body's bytes and nearly all of its decoding: what an
/// unlock's refresh of many watches spends its time on.
public struct TimelineExcerpt: Sendable, Hashable {
    /// Every entry's date, in the timeline's (date) order.
    public let dates: [Date]
    /// When the provider should be asked for a new timeline.
    public let policy: ReloadPolicy
    /// Where ``entry`` is among the entries; `nil` with no entries.
    public let index: Int?
    /// The entry current at the instant the excerpt was made for, in full.
    public let entry: Entry?

    /// The excerpt of `timeline` at `now`.
    public init(_ timeline: Timeline, at now: Date) {
        dates = timeline.entries.map(\.date)
        policy = timeline.policy
        index = Timeline.currentIndex(dates, at: now)
        entry = index.map { timeline.entries[$0] }
    }

    private init(dates: [Date], policy: ReloadPolicy, index: Int?, entry: Entry?) {
        self.dates = dates
        self.policy = policy
        self.index = index
        self.entry = entry
    }

    /// Whether ``entry`` is the current entry at `now` too: the excerpt then answers for
    /// `now` what the whole timeline would. A presentation made at another instant than
    /// the excerpt's asks this first.
    public func covers(_ now: Date) -> Bool {
        Timeline.currentIndex(dates, at: now) == index
    }

    /// `Timeline.validUntil(at:)`; `now` is an instant the excerpt ``covers(_:)``.
    public func validUntil(at now: Date) -> Date? {
        Timeline.validUntil(dates, at: now)
    }

    /// `Timeline.reloadDue`.
    public var reloadDue: Date? {
        Timeline.reloadDue(policy, lastDate: dates.last)
    }

    /// `Timeline.isStale(at:)`.
    public func isStale(at now: Date) -> Bool {
        reloadDue.map { now >= $0 } ?? false
    }

    /// `Timeline.nextChange(after:)`; `now` is an instant the excerpt ``covers(_:)``.
    public func nextChange(after now: Date) -> Date? {
        Timeline.nextChange(validUntil: validUntil(at: now), reloadDue: reloadDue, after: now)
    }

    /// The excerpt at `now` of the timeline in `bytes`, a body the store wrote: the
    /// canonical encoding of a timeline validated with `limits`, authenticated by its AEAD.
    ///
    /// One walk, `Timeline.read`'s own (`Timeline.walk`, `Entry.walk`), reads every
    /// entry's date, skips the other members of the entries
    /// (`JSONReader.skipUncheckedContainer`: bounded, checking brackets and strings' ends
    /// only), reads the policy, and then decodes and validates the current entry alone.
    /// The keys of the timeline and of each entry are checked as `Timeline.read` checks
    /// them, the dates as well (representable, in order), and the entry count.
    ///
    /// Fail-closed: whatever that walk refuses or cannot vouch for (a syntax or type
    /// error, dates out of order, a limit exceeded) goes to `Timeline.decode`, whose
    /// verdict stands: the same error for a body it refuses, the same excerpt otherwise.
    public static func decode(
        from bytes: UnsafeRawBufferPointer, at now: Date, limits: TimelineLimits = .default
    ) throws(InvalidTimeline) -> TimelineExcerpt {
        if let excerpt = try? read(bytes, at: now, limits: limits) { return excerpt }
        return TimelineExcerpt(try Timeline.decode(from: bytes, limits: limits), at: now)
    }

    /// The short walk of ``decode(from:at:limits:)``; `nil` (or an error) sends the body
    /// to the whole decode.
    private static func read(_ bytes: UnsafeRawBufferPointer, at now: Date, limits: TimelineLimits) throws(JSONReadError) -> TimelineExcerpt? {
        var reader = JSONReader(bytes)
        var dates: [Date] = []
        var offsets: [Int] = []
        // A reader standing inside the entries array, at their nesting depth.
        var entryReader: JSONReader?
        // `Timeline.read`'s walk and `Entry.read`'s, skipping what it does not need.
        let policy = try Timeline.walk(from: &reader) { (reader) throws(JSONReadError) in
            if entryReader == nil { entryReader = reader }
            offsets.append(try reader.objectStart())
            dates.append(try Entry.walk(from: &reader) { (_, reader) throws(JSONReadError) in try skip(&reader) })
        }
        try reader.expectEnd()
        // What `TimelineValidator` checks of every entry that is read here, and the order
        // `Timeline` keeps (a body out of order is sorted by the whole decode).
        guard dates.count <= limits.maxEntries, dates.allSatisfy(RFC3339.isRepresentable),
            zip(dates, dates.dropFirst()).allSatisfy({ $0 <= $1 })
        else { return nil }
        let policyShown = policy ?? .atEnd
        guard (try? TimelineValidator.validate(policy: policyShown)) != nil else { return nil }
        let index = Timeline.currentIndex(dates, at: now)
        var entry: Entry?
        if let index, var entryAt = entryReader?.reader(at: offsets[index]) {
            let current = try Entry.read(from: &entryAt)
            guard (try? TimelineValidator.validate(entries: [current], limits: limits)) != nil else { return nil }
            entry = current
        }
        return TimelineExcerpt(dates: dates, policy: policyShown, index: index, entry: entry)
    }

    /// Skips a member's value: a container by its brackets alone, anything else checked.
    private static func skip(_ reader: inout JSONReader) throws(JSONReadError) {
        switch try reader.peek() {
        case .object, .array: try reader.skipUncheckedContainer()
        default: try reader.skipValue()
        }
    }
}
