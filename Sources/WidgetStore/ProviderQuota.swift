/// What one provider may store, so that a runaway provider cannot fill the disk or the
/// index for everyone: at most `maxWidgets` stored timelines, whose files take at
/// most `maxBytes` together, counted as they lie in `timelines/` (sealed, headers and
/// all). A write that would pass either is refused and changes nothing; replacing a
/// widget's timeline counts only the difference, and a delete frees its share.
package struct ProviderQuota: Sendable, Equatable {
    /// `MaxWidgets=`: the most widgets stored at once.
    package var maxWidgets: Int
    /// `MaxBytes=`: the most bytes of stored timeline files.
    package var maxBytes: Int

    /// A quota of `maxWidgets` widgets and `maxBytes` bytes.
    package init(maxWidgets: Int, maxBytes: Int) {
        self.maxWidgets = maxWidgets
        self.maxBytes = maxBytes
    }
}

/// What one provider stores now, by the store's index: verified (or just written)
/// files only. A damaged file proves no owner, so it counts for nobody.
package struct ProviderUsage: Sendable, Equatable {
    /// Stored widgets.
    package var widgets: Int
    /// Bytes of their timeline files.
    package var bytes: Int

    /// Usage of `widgets` widgets in `bytes` bytes.
    package init(widgets: Int = 0, bytes: Int = 0) {
        self.widgets = widgets
        self.bytes = bytes
    }
}
