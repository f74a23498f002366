import WidgetdWire

/// WidgetKit's `TimelineProvider`: gives a widget's placeholder and its timeline.
///
/// ``TimelineRunner`` asks it whenever the daemon wants a new timeline (the reload
/// policy came due, or a host asked) and writes what it returns.
public protocol TimelineProvider: Sendable {
    /// The entries this provider makes.
    associatedtype Entry: TimelineEntry
    /// What the provider is told about the request.
    typealias Context = TimelineProviderContext

    /// An entry-shaped sample without private data, shown while content is unavailable
    /// (before first unlock, a locked protected class). Its date is not used.
    func placeholder(in context: Context) -> Entry

    /// The widget's timeline now.
    func timeline(in context: Context) async -> Timeline<Entry>
}

/// What a provider is told when it is asked for a timeline.
public struct TimelineProviderContext: Sendable, Hashable {
    /// The widget id, e.g. `com.example.weather/forecast`.
    public var widget: String
    /// The widget's family, e.g. `systemSmall`, as the runner was given it.
    public var family: String?
    /// Why the daemon asked: `due` or `requested`; `nil` for the runner's own first write.
    public var reason: ReloadRequest.Reason?

    /// A context.
    public init(widget: String, family: String? = nil, reason: ReloadRequest.Reason? = nil) {
        self.widget = widget
        self.family = family
        self.reason = reason
    }
}
