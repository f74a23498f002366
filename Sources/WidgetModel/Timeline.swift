import FoundationEssentials
import StrictJSON

/// A widget's entries and reload policy: the body the store keeps encrypted (DESIGN §2).
///
/// Entries are kept sorted by date (stably, so entries with the same date keep the
/// order the provider gave), whatever order they arrived in.
public struct Timeline: Sendable, Hashable {
    /// The entries, sorted by date.
    public private(set) var entries: [Entry]
    /// When the provider should be asked for a new timeline.
    public var policy: ReloadPolicy

    /// Makes a timeline, sorting the entries by date.
    public init(entries: [Entry], policy: ReloadPolicy = .atEnd) {
        self.entries = Self.sorted(entries)
        self.policy = policy
    }

    /// This timeline with more entries, merged in date order (`AppendEntries`).
    ///
    /// Validate the result with `TimelineValidator`: appending may exceed `maxEntries`.
    public func appending(_ more: [Entry]) -> Timeline {
        Timeline(entries: entries + more, policy: policy)
    }

    /// The entry shown at `now`: the latest whose date is at or before `now`
    /// (the last given, among equal dates), else the first; nil with no entries.
    public func currentEntry(at now: Date) -> Entry? {
        currentIndex(at: now).map { entries[$0] }
    }

    /// Until when the current entry stays current: the first later entry's date.
    ///
    /// When every entry is in the future, the first one is shown already and stays
    /// until the second one's date.
    public func validUntil(at now: Date) -> Date? {
        Self.validUntil(entries.lazy.map(\.date), at: now)
    }

    /// When the provider should be asked for a new timeline, or nil for never.
    ///
    /// `atEnd` is due at the last entry's date; with no entries at all it is due at
    /// once (`Date.distantPast`): an empty timeline has nothing left to show, so the
    /// provider should be asked. `after(d)` is due at `d`; `never` is never due.
    public var reloadDue: Date? {
        Self.reloadDue(policy, lastDate: entries.last?.date)
    }

    /// Whether the reload is due at `now` and this timeline is therefore stale.
    public func isStale(at now: Date) -> Bool {
        reloadDue.map { now >= $0 } ?? false
    }

    /// The next instant after `now` at which a presentation of this timeline changes:
    /// the earlier of the next entry change (`validUntil`) and a reload falling due.
    ///
    /// The daemon sleeps until then to push updates to watchers.
    public func nextChange(after now: Date) -> Date? {
        Self.nextChange(validUntil: validUntil(at: now), reloadDue: reloadDue, after: now)
    }

    /// Decodes and validates a timeline from raw JSON bytes (`{"entries":[…],"policy"?:{…}}`).
    ///
    /// The bytes are read in place, so a decrypted body can stay in its locked buffer.
    public static func decode(from bytes: UnsafeRawBufferPointer, limits: TimelineLimits = .default) throws(InvalidTimeline) -> Timeline {
        let timeline = try InvalidTimeline.reading(bytes) { (reader) throws(JSONReadError) in try Timeline.read(from: &reader) }
        try TimelineValidator.validate(timeline, limits: limits)
        return timeline
    }

    /// Decodes and validates a timeline from JSON bytes.
    public static func decode(from bytes: [UInt8], limits: TimelineLimits = .default) throws(InvalidTimeline) -> Timeline {
        try bytes.withUnsafeBytes { buffer in Result { () throws(InvalidTimeline) in try decode(from: buffer, limits: limits) } }.get()
    }

    private func currentIndex(at now: Date) -> Int? {
        Self.currentIndex(entries.lazy.map(\.date), at: now)
    }

    // The rules above over the entries' dates alone (sorted), shared with
    // `TimelineExcerpt`, which has no other entry than the current one.

    static func currentIndex<Dates: RandomAccessCollection<Date>>(_ dates: Dates, at now: Date) -> Int?
    where Dates.Index == Int {
        guard !dates.isEmpty else { return nil }
        return dates.lastIndex(where: { $0 <= now }) ?? 0
    }

    static func validUntil<Dates: RandomAccessCollection<Date>>(_ dates: Dates, at now: Date) -> Date?
    where Dates.Index == Int {
        guard let index = currentIndex(dates, at: now) else { return nil }
        let from = max(now, dates[index])
        return dates[(index + 1)...].first(where: { $0 > from })
    }

    static func reloadDue(_ policy: ReloadPolicy, lastDate: Date?) -> Date? {
        switch policy {
        case .atEnd: lastDate ?? .distantPast
        case .after(let date): date
        case .never: nil
        }
    }

    static func nextChange(validUntil: Date?, reloadDue: Date?, after now: Date) -> Date? {
        let candidates = [validUntil, reloadDue.flatMap { $0 > now ? $0 : nil }]
        return candidates.compactMap { $0 }.min()
    }

    private static func sorted(_ entries: [Entry]) -> [Entry] {
        // Providers send entries in date order: checking that costs one pass, where the
        // stable sort copies every entry twice.
        if entries.indices.dropFirst().allSatisfy({ entries[$0 - 1].date <= entries[$0].date }) { return entries }
        return entries.enumerated()
            .sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
            .map(\.element)
    }
}

extension Timeline: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case entries, policy
    }

    /// Decodes `{"entries": […], "policy"?: {…}}`; a missing or null policy is `atEnd`.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let entries = try container.decode([Entry].self, forKey: .entries)
        let policy = try container.decodeIfPresent(ReloadPolicy.self, forKey: .policy) ?? .atEnd
        self.init(entries: entries, policy: policy)
    }

    /// Encodes `{"entries": […], "policy": {…}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(policy, forKey: .policy)
    }
}
