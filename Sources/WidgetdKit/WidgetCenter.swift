import WidgetdClient

/// WidgetKit's `WidgetCenter`: asks providers to reload their widgets' timelines.
///
/// Calls `io.widgetd.Host.ReloadTimelines`, which needs the host role (or admin): an app
/// that also draws widgets uses it after its data changed. Made with a client rather
/// than a shared instance, so that a test gives it its own daemon.
public struct WidgetCenter: Sendable {
    private let client: WidgetdClient
    /// The provider whose widgets are reloaded, or `nil` for every provider's.
    public let provider: String?

    /// A center for `provider`'s widgets (`nil`: every provider's), through `client`.
    public init(client: WidgetdClient, provider: String? = nil) {
        self.client = client
        self.provider = provider
    }

    /// Asks for new timelines of the widgets of `kind`.
    public func reloadTimelines(ofKind kind: String) async throws(WidgetdError) {
        try await client.reloadTimelines(provider: provider, kind: kind)
    }

    /// Asks for new timelines of every widget (of the center's provider, if it has one).
    public func reloadAllTimelines() async throws(WidgetdError) {
        try await client.reloadTimelines(provider: provider)
    }
}
