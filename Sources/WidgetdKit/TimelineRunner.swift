@_exported import WidgetdClient
import WidgetdWire

/// Feeds one provider's widgets: asks a ``TimelineProvider`` for each widget's timeline
/// and writes what it returns (`PutTimeline`, with its placeholder), whenever the daemon
/// asks for it, on the runner's own schedule, and again after every reconnection.
///
/// ``run()`` subscribes to `WatchReloads(provider:)` naming the widgets' provider (on a
/// per-user instance every app runs as the owner, who may provide every provider: only
/// the name keeps this runner from hearing, and answering, another app's requests),
/// writes each widget's timeline, then answers each reload request and each tick of
/// ``refreshInterval`` until its task is cancelled. When widgetd stops or restarts (the
/// stream ends with ``WidgetdError/connectionLost``, or the socket refuses with
/// ``WidgetdError/daemonUnavailable(socket:errorNumber:)``) it waits, by ``backoff``,
/// and subscribes again: a restarted daemon may have lost nothing, but the runner cannot
/// know what it missed meanwhile, so it rewrites every widget at once.
public struct TimelineRunner<Provider: TimelineProvider>: Sendable {
    private let client: WidgetdClient
    /// The provider asked for timelines.
    public let provider: Provider
    /// The widget ids it answers for, e.g. `com.example.weather/forecast`; all of one provider.
    public let widgets: Set<String>
    /// The family written with each timeline.
    public let family: String?
    /// The runner's own schedule: every widget is written again this often, whether or
    /// not the daemon asked (`nil`: only when asked, and after reconnecting).
    public let refreshInterval: Duration?
    /// How long to wait before each attempt to reach a daemon that went away.
    public let backoff: ReconnectBackoff
    /// Waits; `Task.sleep` unless a test gives its own.
    private let sleep: @Sendable (Duration) async throws -> Void

    /// A runner writing `provider`'s timelines for `widgets` (ids of one provider) through
    /// `client`; `sleep` is how it waits (the backoff and the refresh interval).
    public init(
        client: WidgetdClient, provider: Provider, widgets: Set<String>, family: String? = nil,
        refreshInterval: Duration? = nil, backoff: ReconnectBackoff = ReconnectBackoff(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.client = client
        self.provider = provider
        self.widgets = widgets
        self.family = family
        self.refreshInterval = refreshInterval
        self.backoff = backoff
        self.sleep = sleep
    }

    /// The provider id every widget starts with, which the runner names when it
    /// subscribes; ``WidgetdError/invalidParameter(parameter:)`` (`widgets`) when there is
    /// no widget, or they belong to several providers (run one runner per provider).
    public func providerID() throws(WidgetdError) -> String {
        let providers = Set(widgets.map { $0.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0] })
        guard providers.count == 1, let provider = providers.first, !provider.isEmpty else {
            throw .invalidParameter(parameter: "widgets")
        }
        return String(provider)
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

    /// Writes every widget's timeline, then answers each reload request and refresh tick
    /// for them, reconnecting whenever widgetd goes away, until the task is cancelled
    /// (then it returns). Any other error (the provider not registered for this user, a
    /// timeline widgetd refuses) is thrown.
    public func run() async throws(WidgetdError) {
        let provider = try providerID()
        var delay = backoff.initial
        while !Task.isCancelled {
            do throws(WidgetdError) {
                try await follow(provider) { delay = backoff.initial }
                return
            } catch where error.meansDaemonGone {
                do { try await sleep(delay) } catch { return }
                delay = backoff.after(delay)
            }
        }
    }

    /// What a connected runner waits for.
    ///
    /// Actions (`WatchActions(provider:)`, DESIGN §13) join as one more case and one more
    /// source in ``follow(_:connected:)``, answered by a provider method beside
    /// ``TimelineProvider/timeline(in:)``; the reconnection around it stays as it is.
    private enum Event: Sendable {
        case request(ReloadRequest)
        case refresh
        /// The reload stream ended: the daemon went away (or answered an error).
        case ended(WidgetdError)
    }

    /// One connection's life: subscribe, write every widget, answer until the stream
    /// ends (thrown) or the task is cancelled (returns). `connected` runs once the
    /// first writes went through.
    private func follow(_ provider: String, connected: () -> Void) async throws(WidgetdError) {
        // Subscribed first, so that a request arriving during the first writes is not missed.
        let (subscribed, sent) = AsyncStream.makeStream(of: Void.self)
        let requests = client.watchReloads(provider: provider) { sent.finish() }
        for await _ in subscribed {}
        // `whenSent` also runs when the stream could not connect: a daemon still away is
        // found here, before the provider is asked for timelines that could not be written.
        _ = try await client.status()
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        let reader = Task {
            do {
                for try await request in requests { sink.yield(.request(request)) }
                sink.yield(.ended(.connectionLost))
            } catch let error as WidgetdError {
                sink.yield(.ended(error))
            } catch {
                sink.yield(.ended(.malformedReply("\(error)")))
            }
        }
        let ticker = refreshInterval.map { interval in
            Task {
                while !Task.isCancelled {
                    do { try await sleep(interval) } catch { return }
                    sink.yield(.refresh)
                }
            }
        }
        defer {
            reader.cancel()
            ticker?.cancel()
            sink.finish()
        }
        for widget in widgets.sorted() { try await reload(widget) }
        connected()
        for await event in events {
            switch event {
            case .request(let request) where widgets.contains(request.widget):
                try await reload(request.widget, reason: request.reason)
            case .request:
                // Another widget of this provider (written by another program of it): not ours.
                continue
            case .refresh:
                for widget in widgets.sorted() { try await reload(widget) }
            case .ended(let error):
                throw error
            }
        }
    }
}

/// How long a ``TimelineRunner`` waits before trying again to reach widgetd: `initial`
/// after the first failure, doubled after each further one up to `maximum`, and back to
/// `initial` once a connection worked.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The first wait.
    public var initial: Duration
    /// The longest wait.
    public var maximum: Duration

    /// A backoff from `initial` to `maximum`.
    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// The wait after one of `delay`.
    public func after(_ delay: Duration) -> Duration { min(delay * 2, maximum) }
}

extension WidgetdError {
    /// Whether the error says widgetd is not there, or not yet ready (stopped, restarting,
    /// indexing after a start): worth waiting for.
    var meansDaemonGone: Bool {
        switch self {
        case .connectionLost, .daemonUnavailable, .tryAgainLater: true
        default: false
        }
    }
}
