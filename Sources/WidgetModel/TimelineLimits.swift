/// Bounds on what a provider may store, so that one provider cannot exhaust the
/// daemon's locked memory or make every presentation slow.
public struct TimelineLimits: Sendable, Hashable {
    /// Most entries in one timeline (or one `AppendEntries` result).
    public var maxEntries: Int
    /// Most fields in one entry or placeholder.
    public var maxFieldsPerEntry: Int
    /// Longest field name, in UTF-8 bytes.
    public var maxFieldNameBytes: Int
    /// Largest value of one field, in bytes as encoded (see `TimelineValidator`).
    public var maxValueBytes: Int
    /// Deepest nesting of arrays and objects inside one value.
    public var maxNestingDepth: Int

    /// 1000 entries, 64 fields of names up to 128 bytes, values up to 16 KiB nested up to 32 deep.
    public static let `default` = TimelineLimits(
        maxEntries: 1000, maxFieldsPerEntry: 64, maxFieldNameBytes: 128,
        maxValueBytes: 16 * 1024, maxNestingDepth: 32)

    /// Makes a set of limits.
    public init(maxEntries: Int, maxFieldsPerEntry: Int, maxFieldNameBytes: Int, maxValueBytes: Int, maxNestingDepth: Int) {
        self.maxEntries = maxEntries
        self.maxFieldsPerEntry = maxFieldsPerEntry
        self.maxFieldNameBytes = maxFieldNameBytes
        self.maxValueBytes = maxValueBytes
        self.maxNestingDepth = maxNestingDepth
    }
}
