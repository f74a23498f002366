/// What one provider may store, so that a runaway provider cannot fill the disk or the
/// index for everyone: at most `maxWidgets` stored timelines, whose files take at
/// most `maxBytes` together, counted as they lie in `timelines/` (sealed, headers and
/// all). A write that would pass either is refused and changes nothing; replacing a
/// widget's timeline counts only the difference, and a delete frees its share.
public struct ProviderQuota: Sendable, Equatable {
    /// `MaxWidgets=`: the most widgets stored at once.
    public var maxWidgets: Int
    /// `MaxBytes=`: the most bytes of stored timeline files.
    public var maxBytes: Int

    /// A quota of `maxWidgets` widgets and `maxBytes` bytes.
    public init(maxWidgets: Int, maxBytes: Int) {
        self.maxWidgets = maxWidgets
        self.maxBytes = maxBytes
    }
}

/// What one provider stores now, by the store's index: verified (or just written)
/// files only. A damaged file proves no owner, so it counts for nobody.
public struct ProviderUsage: Sendable, Equatable {
    /// Stored widgets.
    public var widgets: Int
    /// Bytes of their timeline files.
    public var bytes: Int

    /// Usage of `widgets` widgets in `bytes` bytes.
    public init(widgets: Int = 0, bytes: Int = 0) {
        self.widgets = widgets
        self.bytes = bytes
    }
}
