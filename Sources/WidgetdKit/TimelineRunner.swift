@_exported import WidgetdClient
import WidgetdWire

/// Answers the daemon's reload requests for some widgets by asking a ``TimelineProvider``
/// and writing what it returns (`PutTimeline`, with its placeholder).
///
/// ``run()`` writes each widget's timeline once, then follows `WatchReloads` until its
/// task is cancelled (it then returns) or the daemon goes away (it throws
/// ``WidgetdError/connectionLost``; run it again to reconnect).
public struct TimelineRunner<Provider: TimelineProvider>: Sendable {
    private let client: WidgetdClient
    /// The provider asked for timelines.
    public let provider: Provider
    /// The widget ids it answers for, e.g. `com.example.weather/forecast`.
    public let widgets: Set<String>
    /// The family written with each timeline.
    public let family: String?

    /// A runner writing `provider`'s timelines for `widgets` through `client`.
    public init(client: WidgetdClient, provider: Provider, widgets: Set<String>, family: String? = nil) {
        self.client = client
        self.provider = provider
        self.widgets = widgets
        self.family = family
    }

    /// Asks the provider for `widget`'s timeline and writes it; returns the new generation.
    @discardableResult
    public func reload(_ widget: String, reason: ReloadRequest.Reason? = nil) async throws(WidgetdError) -> UInt64 {
        let context = TimelineProviderContext(widget: widget, family: family, reason: reason)
        let placeholder = provider.placeholder(in: context)
        let timeline = await provider.timeline(in: context)
        return try await client.putTimeline(
            widget: widget, family: family, entries: timeline.entries.map(\.modelEntry), policy: timeline.policy.model,
            placeholder: placeholder.modelPlaceholder)
    }

    /// Writes every widget's timeline once, then answers each reload request for them.
    public func run() async throws(WidgetdError) {
        // Subscribed first, so that a request arriving during the first writes is not missed.
        let (subscribed, sent) = AsyncStream.makeStream(of: Void.self)
        let requests = client.watchReloads { sent.finish() }
        for await _ in subscribed {}
        for widget in widgets.sorted() { try await reload(widget) }
        do {
            for try await request in requests where widgets.contains(request.widget) {
                try await reload(request.widget, reason: request.reason)
            }
        } catch let error as WidgetdError {
            throw error
        } catch {
            throw .malformedReply("\(error)")
        }
    }
}
