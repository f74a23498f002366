import Foundation
import Synchronization
import Testing
import WidgetModel
import WidgetdKit
import WidgetdWire

/// WidgetdKit's actions and roles, and WidgetdClient's performAction, watchActions and
/// watchWidgets, against the real daemon (DESIGN §12, §13).
@Suite struct WidgetdKitActionTests {
    /// What the toggle's intent was given, each time it ran.
    static let performed = Mutex<[Bool]>([])

    struct PlayIntent: SetValueIntent {
        static let title = "Play"
        static let actionID = "play"
        static let authenticationPolicy = IntentAuthenticationPolicy.alwaysAllowed
        var value = false
        func perform() async throws { WidgetdKitActionTests.performed.withLock { $0.append(value) } }
    }

    struct OpenIntent: AppIntent {
        static let title = "Open"
        func perform() async throws {}
    }

    struct MediaEntry: TimelineEntry {
        let date: Date
        let station: FieldValue
        let progress: Gauge
        let ends: Text
        var actions: [any WidgetActionConvertible] {
            [Toggle(isOn: false, intent: PlayIntent()), Button(intent: OpenIntent())]
        }
    }

    struct MediaProvider: TimelineProvider {
        func placeholder(in context: Context) -> MediaEntry { entry() }
        func timeline(in context: Context) async -> WidgetdKit.Timeline<MediaEntry> { WidgetdKit.Timeline(entries: [entry()], policy: .never) }
        func entry() -> MediaEntry {
            MediaEntry(
                date: Date().addingTimeInterval(-60), station: FieldValue("Radio Jazz").role(.title).unredacted(),
                progress: Gauge(value: 30, in: 0...60), ends: Text(Date(timeIntervalSince1970: 1_800_000_000), style: .timer))
        }
    }

    /// Performs `action`, waiting for its end; nil while its provider is not watching.
    static func perform(_ client: WidgetdClient, _ widget: String, _ action: String) async throws -> ActionOutcome? {
        let result: Result<ActionOutcome, WidgetdError>
        do { result = .success(try await client.performAction(widget: widget, surface: .lockScreen, action: action, wait: true)) } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let outcome): return outcome
        case .failure(.providerUnavailable): return nil
        case .failure(let error): throw error
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aToggleMadeWithWidgetKitsVocabularyRunsItsIntentWithTheNewValue() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = WidgetdClient(socketPath: daemon.socketPath)
        let widget = "com.example.clock/media"

        // Subscribed to the widget stream first, so that the write below is told.
        let (subscribed, sent) = AsyncStream.makeStream(of: Void.self)
        var events = client.watchWidgets { sent.finish() }.makeAsyncIterator()
        for await _ in subscribed {}
        let runner = TimelineRunner(client: client, provider: MediaProvider(), widgets: [widget])
        try await runner.reload(widget)

        let shown = try await client.presentation(widget: widget, surface: .lockScreen)
        #expect(shown.actions.map(\.id) == ["play", "OpenIntent"])  // an actionID, else the type's name
        #expect(shown.actions.map(\.kind) == [.toggle, .button])
        #expect(shown.actions.map(\.authentication) == [.alwaysAllowed, .requiresAuthentication])
        #expect(shown.entry.fields["station"]?.role == .title)
        #expect(shown.entry.fields["progress"]?.role == .gauge)
        #expect(shown.entry.fields["progress"]?.range == GaugeRange(lowerBound: 0, upperBound: 60))
        #expect(shown.entry.fields["ends"]?.style == .timer)
        #expect(shown.entry.fields["ends"]?.value == .string("2027-01-15T08:00:00Z"))

        // Up to the daemon reading the watch, nothing was watching: each try is a round trip.
        let intents = IntentRunner(client: client, provider: "com.example.clock", intents: [PlayIntent.self, OpenIntent.self])
        let performing = Task { try await intents.run() }
        defer { performing.cancel() }
        var outcome: ActionOutcome?
        for _ in 0..<2000 where outcome == nil {
            outcome = try await Self.perform(client, widget, "play")
        }
        #expect(outcome == .delivered)
        var ran: [Bool] = []
        for _ in 0..<5000 where ran.isEmpty {
            ran = Self.performed.withLock { $0 }
            await Task.yield()
        }
        #expect(ran == [true])

        var refused: WidgetdError?
        do { _ = try await client.performAction(widget: widget, surface: .lockScreen, action: "rewind") } catch { refused = error }
        #expect(refused == .actionNotAvailable(action: "rewind"))
        let added = try await events.next()
        #expect(added?.event == .added)
        #expect(added?.widget.widget == widget)
    }
}
