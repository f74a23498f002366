import FoundationEssentials
import WidgetModel

/// WidgetKit's `Timeline`: the entries a provider gives, and when to ask it again.
public struct Timeline<EntryType: TimelineEntry>: Sendable {
    /// The entries, each current from its date on.
    public var entries: [EntryType]
    /// When the daemon asks the provider for a new timeline.
    public var policy: TimelineReloadPolicy

    /// A timeline of `entries` reloaded as `policy` says.
    public init(entries: [EntryType], policy: TimelineReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }
}

/// WidgetKit's `TimelineReloadPolicy`: when the provider wants to be asked again.
public struct TimelineReloadPolicy: Sendable, Hashable {
    /// The policy as widgetd's model has it.
    let model: ReloadPolicy

    /// Once the last entry's date has passed.
    public static let atEnd = TimelineReloadPolicy(model: .atEnd)
    /// Never on its own: only when a host asks (`WidgetCenter.reloadTimelines`).
    public static let never = TimelineReloadPolicy(model: .never)
    /// Once `date` has passed.
    public static func after(_ date: Date) -> TimelineReloadPolicy { TimelineReloadPolicy(model: .after(date)) }
}
