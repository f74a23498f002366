import FoundationEssentials
import Glibc
import Synchronization
import Varlink
import WidgetModel
import WidgetdWire

/// A client of widgetd: every method of `io.widgetd.Device`, `.Provider` and `.Host` as
/// `async throws`, the streams as `AsyncThrowingStream`s.
///
/// Calls reuse idle connections (one per call in flight); each stream holds a connection
/// of its own, freed when the stream ends or its task is cancelled. Blocking socket work
/// runs on threads of its own, never on Swift's cooperative pool. Safe to share between
/// tasks.
public final class WidgetdClient: Sendable {
    /// The daemon's socket.
    public let socketPath: String
    /// Connections not in use, most recently used last.
    private let idle = Mutex<[ClientSocket]>([])
    /// At most this many idle connections are kept.
    private static let maximumIdleConnections = 4

    /// A client of the daemon at `socketPath`; `nil` finds it as widgetctl does:
    /// `WIDGETD_SOCKET`, else root's `/run/widgetd/widgetd.sock`, else
    /// `$XDG_RUNTIME_DIR/widgetd/widgetd.sock`. Nothing is connected until the first call.
    public init(socketPath: String? = nil) {
        self.socketPath = socketPath ?? Self.defaultSocketPath()
    }

    /// widgetctl's default socket (DESIGN §7), from this process's environment and user.
    static func defaultSocketPath() -> String {
        SocketLocation.resolve(option: nil, environment: ProcessInfo.processInfo.environment, userID: getuid())
    }

    // MARK: io.widgetd.Device

    /// `GetStatus`: lock state, key availability, failed attempts and settings.
    public func status() async throws(WidgetdError) -> StatusReply {
        try await call(.getStatus, Empty(), as: StatusReply.self)
    }

    /// `Unlock(passcode)`: the passcode goes from its zeroed buffer into a zeroed request.
    public func unlock(passcode: Passcode) async throws(WidgetdError) {
        _ = try await secretCall(.unlock, [("passcode", passcode)])
    }

    /// `Lock()`: locked surfaces change at once; it wins over every Unlock not yet answered.
    public func lock() async throws(WidgetdError) {
        _ = try await call(.lock, Empty(), as: Empty.self)
    }

    /// `SetPasscode(current?, new?)`: set (no current), change, or remove (no new).
    public func setPasscode(current: Passcode?, new: Passcode?) async throws(WidgetdError) {
        _ = try await secretCall(.setPasscode, [("current", current), ("new", new)])
    }

    /// `Wipe(confirm)`: crypto-erases every timeline; `confirm` must be `"WIPE"`.
    public func wipe(confirm: String) async throws(WidgetdError) {
        _ = try await call(.wipe, WipeParameters(confirm: confirm), as: Empty.self)
    }

    /// `GetSettings()`.
    public func settings() async throws(WidgetdError) -> Settings {
        try await call(.getSettings, Empty(), as: SettingsReply.self).settings
    }

    /// `SetSettings(…)`: changes the given settings (`nil` keeps one) and returns all of them.
    public func setSettings(
        lockScreenWidgetsAccess: Bool? = nil, hiddenLockScreenWidgets: [String]? = nil,
        hideSensitiveComplications: HideSensitiveComplications? = nil, hiddenComplications: [String]? = nil
    ) async throws(WidgetdError) -> Settings {
        let parameters = SetSettingsParameters(
            lockScreenWidgetsAccess: lockScreenWidgetsAccess, hiddenLockScreenWidgets: hiddenLockScreenWidgets,
            hideSensitiveComplications: hideSensitiveComplications?.rawValue, hiddenComplications: hiddenComplications)
        return try await call(.setSettings, parameters, as: SettingsReply.self).settings
    }

    /// `Monitor()`: the current state, then every state and settings change.
    public func monitor() -> AsyncThrowingStream<DeviceEvent, any Error> {
        ReplyStream.open(socketPath: socketPath, method: .monitor, parameters: Empty()) { (reply) throws(WidgetdError) in
            try WireCoding.decode(DeviceEventReply.self, from: reply).event
        }
    }

    // MARK: io.widgetd.Provider

    /// `PutTimeline`: replaces a widget's timeline; returns its new generation.
    @discardableResult
    public func putTimeline(
        widget: String, family: String? = nil, entries: [Entry], policy: ReloadPolicy? = nil, placeholder: Placeholder? = nil
    ) async throws(WidgetdError) -> UInt64 {
        let parameters = PutTimelineParameters(widget: widget, family: family, entries: entries, policy: policy, placeholder: placeholder)
        return try await call(.putTimeline, parameters, as: GenerationReply.self).generation
    }

    /// `AppendEntries`: appends entries to a readable timeline; returns its new generation.
    @discardableResult
    public func appendEntries(widget: String, entries: [Entry]) async throws(WidgetdError) -> UInt64 {
        try await call(.appendEntries, AppendEntriesParameters(widget: widget, entries: entries), as: GenerationReply.self).generation
    }

    /// `GetTimeline`: the stored timeline, which must be readable; each entry's fields in
    /// the order they were written.
    public func timeline(widget: String) async throws(WidgetdError) -> TimelineReply {
        let request = try WireCoding.call(WidgetdMethod.getTimeline.fullName, WidgetParameters(widget: widget))
        return try await exchange { (socket) throws(WidgetdError) in try socket.call(request) } decode: { (reply) throws(WidgetdError) in
            var timeline = try WireCoding.decode(TimelineReply.self, from: reply)
            let sent = reply.orderedParameters["entries"]
            for index in timeline.entries.indices {
                timeline.entries[index].fields = timeline.entries[index].fields.ordered(as: sent?[index]?["fields"]?.names ?? [])
            }
            return timeline
        }
    }

    /// `CloseTimeline`: drops an open timeline's plaintext from the daemon's memory.
    public func closeTimeline(widget: String) async throws(WidgetdError) {
        _ = try await call(.closeTimeline, WidgetParameters(widget: widget), as: Empty.self)
    }

    /// `DeleteTimeline`.
    public func deleteTimeline(widget: String) async throws(WidgetdError) {
        _ = try await call(.deleteTimeline, WidgetParameters(widget: widget), as: Empty.self)
    }

    /// `WatchReloads(provider?)`: reload requests for `provider`'s widgets, or with `nil`
    /// for every provider the caller may provide (an admin's: all). A provider names
    /// itself: on a per-user instance every app runs as the owner, who may provide all.
    ///
    /// The daemon sends nothing until a reload is wanted; `whenSent` runs once the call is
    /// written (or the stream failed first), so that a caller can write its first
    /// timelines after subscribing.
    public func watchReloads(
        provider: String? = nil, whenSent: (@Sendable () -> Void)? = nil
    ) -> AsyncThrowingStream<ReloadRequest, any Error> {
        let parameters = WatchReloadsParameters(provider: provider)
        return ReplyStream.open(socketPath: socketPath, method: .watchReloads, parameters: parameters, whenSent: whenSent) {
            (reply) throws(WidgetdError) in
            try WireCoding.decode(ReloadRequest.self, from: reply)
        }
    }

    /// `WatchActions(provider?)`: the actions hosts perform on the caller's widgets (of
    /// `provider` only, if given), each delivered once to one watching connection of its
    /// provider; a toggle's ``ActionDelivery/isOn`` is its new state. The daemon sends
    /// nothing until an action is performed; `whenSent` runs once the call is written.
    public func watchActions(provider: String? = nil, whenSent: (@Sendable () -> Void)? = nil) -> AsyncThrowingStream<ActionDelivery, any Error> {
        ReplyStream.open(socketPath: socketPath, method: .watchActions, parameters: WatchActionsParameters(provider: provider), whenSent: whenSent) {
            (reply) throws(WidgetdError) in
            try WireCoding.decode(ActionDelivery.self, from: reply)
        }
    }

    // MARK: io.widgetd.Host

    /// `ListWidgets`: without `limit` every widget, with it one page and `next`.
    public func listWidgets(provider: String? = nil, after: String? = nil, limit: Int? = nil) async throws(WidgetdError) -> ListWidgetsReply {
        try await call(.listWidgets, ListWidgetsParameters(provider: provider, after: after, limit: limit), as: ListWidgetsReply.self)
    }

    /// `GetPresentation`: what a surface may show of a widget now, its fields in the
    /// provider's order (the order every host draws them in).
    public func presentation(widget: String, surface: Surface) async throws(WidgetdError) -> Presentation {
        let request = try WireCoding.call(
            WidgetdMethod.getPresentation.fullName, PresentationParameters(widget: widget, surface: surface.rawValue))
        return try await exchange { (socket) throws(WidgetdError) in try socket.call(request) } decode: { (reply) throws(WidgetdError) in
            try Self.presentation(from: reply)
        }
    }

    /// A presentation reply decoded, its fields put back in the order sent (a decoded
    /// `FieldList` is sorted by name).
    static func presentation(from reply: VarlinkReplyMessage) throws(WidgetdError) -> Presentation {
        var presentation = try WireCoding.decode(PresentationReply.self, from: reply).presentation
        presentation.entry.fields = presentation.entry.fields.ordered(as: reply.fieldOrder)
        return presentation
    }

    /// `Watch`: the current presentation, then each new one as it changes.
    public func watch(widget: String, surface: Surface) -> AsyncThrowingStream<Presentation, any Error> {
        let parameters = PresentationParameters(widget: widget, surface: surface.rawValue)
        return ReplyStream.open(socketPath: socketPath, method: .watch, parameters: parameters) { (reply) throws(WidgetdError) in
            try Self.presentation(from: reply)
        }
    }

    /// `ReloadTimelines`: asks providers to reload, all or those given (WidgetCenter's call).
    public func reloadTimelines(provider: String? = nil, kind: String? = nil) async throws(WidgetdError) {
        _ = try await call(.reloadTimelines, ReloadTimelinesParameters(provider: provider, kind: kind), as: Empty.self)
    }

    /// `PerformAction(widget, surface, action)`: performs an action of what `surface`
    /// shows now. Without `wait` the first outcome (`.held` when it waits for an unlock);
    /// with it, a held action's final one, `.delivered` or `.expired`, followed on a
    /// connection of its own. ``WidgetdError/actionNotAvailable(action:)`` when the surface
    /// does not show it, ``WidgetdError/providerUnavailable(provider:)`` when no connection
    /// of its provider watches actions.
    public func performAction(widget: String, surface: Surface, action: String, wait: Bool = false) async throws(WidgetdError) -> ActionOutcome {
        let parameters = PerformActionParameters(widget: widget, surface: surface.rawValue, action: action)
        guard wait else { return try await call(.performAction, parameters, as: PerformActionReply.self).outcome }
        let replies = ReplyStream.open(socketPath: socketPath, method: .performAction, parameters: parameters) {
            (reply) throws(WidgetdError) in
            try WireCoding.decode(PerformActionReply.self, from: reply).outcome
        }
        var outcome = ActionOutcome.expired
        do {
            for try await next in replies { outcome = next }
        } catch let error as WidgetdError {
            throw error
        } catch {
            throw .connectionLost
        }
        return outcome
    }

    /// `WatchWidgets()`: each widget added, removed or changed (a new family or class).
    public func watchWidgets(whenSent: (@Sendable () -> Void)? = nil) -> AsyncThrowingStream<WidgetEvent, any Error> {
        ReplyStream.open(socketPath: socketPath, method: .watchWidgets, parameters: Empty(), whenSent: whenSent) {
            (reply) throws(WidgetdError) in
            try WireCoding.decode(WidgetEvent.self, from: reply)
        }
    }

    // MARK: Calls

    /// Calls `method` once and decodes its reply.
    private func call<P: Encodable, R: Decodable & Sendable>(
        _ method: WidgetdMethod, _ parameters: P, as type: R.Type
    ) async throws(WidgetdError) -> R {
        let request = try WireCoding.call(method.fullName, parameters)
        return try await exchange { (socket) throws(WidgetdError) in
            try socket.call(request)
        } decode: { (reply) throws(WidgetdError) in try WireCoding.decode(R.self, from: reply) }
    }

    /// Calls `method` with passcodes, the request built and sent from zeroed memory.
    private func secretCall(_ method: WidgetdMethod, _ secrets: [(name: String, value: Passcode?)]) async throws(WidgetdError) -> Empty {
        try await exchange { (socket) throws(WidgetdError) in
            try socket.call(SecretCall.encode(method.fullName, secrets.map { (name: $0.name, value: $0.value?.buffer) }))
        } decode: { (reply) throws(WidgetdError) in try WireCoding.decode(Empty.self, from: reply) }
    }

    /// Runs one request and reply on an idle connection (or a new one) off the pool.
    ///
    /// A connection kept idle may have been closed by the daemon since (its idle timeout,
    /// a restart): when a reused one is found closed, the call is made once more on a new
    /// connection. A connection that answered goes back to the idle ones.
    private func exchange<R: Sendable>(
        _ body: @escaping @Sendable (ClientSocket) throws(WidgetdError) -> VarlinkReplyMessage,
        decode: (VarlinkReplyMessage) throws(WidgetdError) -> R
    ) async throws(WidgetdError) -> R {
        let path = socketPath
        let reused = idle.withLock { $0.popLast() }
        let reply: VarlinkReplyMessage
        let socket: ClientSocket
        do {
            (socket, reply) = try await BlockingThread.run { () throws(WidgetdError) in
                if let reused {
                    do throws(WidgetdError) { return (reused, try body(reused)) } catch {
                        guard error == .connectionLost else { throw error }
                    }
                }
                let fresh = try ClientSocket(path: path)
                return (fresh, try body(fresh))
            }
        }
        idle.withLock { connections in
            if connections.count < Self.maximumIdleConnections { connections.append(socket) }
        }
        return try decode(reply)
    }
}
