import Foundation
import Synchronization
import Testing
import WidgetModel
import WidgetdKit
import WidgetdWire

/// The Swift client library and its WidgetKit-shaped provider layer against the real
/// daemon (DESIGN §10).
@Suite struct WidgetdClientTests {
    /// One entry, current since a minute ago, whose `count` says which timeline it is.
    struct CountEntry: TimelineEntry {
        let date: Date
        let label: FieldValue
        let count: FieldValue
        let secret: FieldValue
    }

    /// How many timelines the provider has made.
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Gives timeline number n with `count` = n; the placeholder shows only its label.
    /// Each call is told on `calls`, with its reason (`nil`: the runner's own first write).
    struct CountingProvider: TimelineProvider {
        let counter: Counter
        var calls: AsyncStream<ReloadRequest.Reason?>.Continuation?

        func placeholder(in context: Context) -> CountEntry {
            CountEntry(date: Date(), label: FieldValue("Counter").unredacted(), count: 0, secret: FieldValue("").privacySensitive())
        }

        func timeline(in context: Context) async -> WidgetdKit.Timeline<CountEntry> {
            let n = counter.value.add(1, ordering: .sequentiallyConsistent).newValue
            calls?.yield(context.reason)
            let entry = CountEntry(
                date: Date().addingTimeInterval(-60), label: FieldValue("Counter").unredacted(), count: FieldValue(n),
                secret: FieldValue("SECRET-\(n)").privacySensitive())
            return WidgetdKit.Timeline(entries: [entry], policy: .never)
        }
    }

    /// The presentation's `count`, or 0 when it has none.
    private static func count(_ presentation: Presentation) -> Int {
        guard case .number(let number)? = presentation.entry.fields["count"]?.value else { return 0 }
        return Int(number.doubleValue)
    }

    /// Polls `condition` until it holds, at most `attempts` times 20 ms apart. Counted in
    /// attempts, not seconds: while a loaded parallel run starves this task, none is spent.
    private static func eventually(attempts: Int = 3000, _ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<attempts {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test(.timeLimit(.minutes(10)))
    func aProviderBuiltWithTheWidgetKitLayerAnswersAHostsReloadTimelines() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let widget = "com.example.clock/counter"
        let client = WidgetdClient(socketPath: daemon.socketPath)
        let counter = Counter()
        let (calls, told) = AsyncStream.makeStream(of: ReloadRequest.Reason?.self)
        let provider = CountingProvider(counter: counter, calls: told)
        let runner = TimelineRunner(client: client, provider: provider, widgets: [widget], family: "systemSmall")
        let running = Task { try await runner.run() }
        defer { running.cancel() }
        var asked = calls.makeAsyncIterator()

        // The runner writes once on its own (after subscribing). WatchReloads has no first
        // reply, so the host asks until the provider answers a request: from then on the
        // runner's stream is surely registered. Extra requests only make extra timelines.
        #expect(await asked.next() == .some(nil))
        let center = WidgetCenter(client: client, provider: "com.example.clock")
        let asking = Task {
            while !Task.isCancelled {
                try await center.reloadTimelines(ofKind: "counter")
                try await Task.sleep(for: .seconds(2))
            }
        }
        while await asked.next() != .some(.requested) {}
        asking.cancel()
        _ = await asking.result

        // Measured: from the host's ReloadTimelines to the host's Watch showing the new timeline.
        var watch = client.watch(widget: widget, surface: .homeScreen).makeAsyncIterator()
        var current = try #require(try await watch.next())
        var roundTrips: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<10 {
            let expected = counter.value.load(ordering: .sequentiallyConsistent) + 1
            let start = clock.now
            try await client.reloadTimelines(provider: "com.example.clock", kind: "counter")
            while Self.count(current) < expected { current = try #require(try await watch.next()) }
            roundTrips.append(clock.now - start)
        }
        #expect(current.mode == .content)
        #expect(current.entry.fields["secret"]?.value == .string("SECRET-\(Self.count(current))"))
        let sorted = roundTrips.sorted()
        print("WidgetdClient ReloadTimelines → provider → PutTimeline → Watch round trip: median \(sorted[sorted.count / 2]), min \(sorted[0]), max \(sorted[sorted.count - 1])")
    }

    /// A runner outlives widgetd: when the daemon stops, it waits (by its backoff, on its
    /// injected sleep) and, once widgetd is back, subscribes again and rewrites its widget.
    /// It also writes on its own schedule, and names its provider: another provider's
    /// widget is never rewritten by a `ReloadTimelines()` of every provider.
    @Test(.timeLimit(.minutes(10)))
    func aTimelineRunnerReconnectsAfterARestartAndRewritesItsWidgets() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let widget = "com.example.clock/counter"
        let client = WidgetdClient(socketPath: daemon.socketPath)
        try await client.putTimeline(
            widget: "com.example.weather/forecast",
            entries: [Entry(date: Date(), fields: FieldList([("t", Field(value: .string("7 °C")))]))], policy: .never)
        let counter = Counter()
        let (calls, told) = AsyncStream.makeStream(of: ReloadRequest.Reason?.self)
        // Waits of the backoff are told here, then let through at once: no real time passes.
        let (waits, waited) = AsyncStream.makeStream(of: Duration.self)
        let runner = TimelineRunner(
            client: client, provider: CountingProvider(counter: counter, calls: told), widgets: [widget],
            backoff: ReconnectBackoff(initial: .milliseconds(100), maximum: .milliseconds(400)),
            sleep: { duration in
                waited.yield(duration)
                try await Task.sleep(for: .milliseconds(20))
            })
        #expect(try runner.providerID() == "com.example.clock")
        let failure = Mutex<String?>(nil)
        let running = Task {
            do { try await runner.run() } catch { failure.withLock { $0 = "\(error)" } }
        }
        defer { running.cancel() }
        var asked = calls.makeAsyncIterator()
        #expect(await asked.next() == .some(nil))
        // Written (the provider is asked first, then the write goes out).
        #expect(try await Self.eventually { (try? await client.timeline(widget: widget).generation) == 1 })

        daemon.stop()
        var backoff = waits.makeAsyncIterator()
        // Doubling up to its maximum while nobody answers.
        #expect(await backoff.next() == .milliseconds(100))
        #expect(await backoff.next() == .milliseconds(200))
        #expect(await backoff.next() == .milliseconds(400))
        #expect(await backoff.next() == .milliseconds(400))
        try daemon.start()
        // Back: the runner subscribed again and rewrote its widget on its own (the
        // provider is asked only once widgetd answers, then the write follows).
        #expect(await asked.next() == .some(nil))
        #expect(
            try await Self.eventually { try await client.timeline(widget: widget).generation >= 2 },
            "the runner ended: \(failure.withLock { $0 } ?? "no")")

        // Named: a reload of every provider reaches it for its widget only.
        let weather = try await client.timeline(widget: "com.example.weather/forecast").generation
        try await client.reloadTimelines()
        while await asked.next() != .some(.requested) {}
        #expect(try await client.timeline(widget: "com.example.weather/forecast").generation == weather)
    }

    @Test(.timeLimit(.minutes(10)))
    func aTimelineRunnerWritesOnItsOwnScheduleToo() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = WidgetdClient(socketPath: daemon.socketPath)
        let counter = Counter()
        let (calls, told) = AsyncStream.makeStream(of: ReloadRequest.Reason?.self)
        let (ticks, tick) = AsyncStream.makeStream(of: Void.self)
        let runner = TimelineRunner(
            client: client, provider: CountingProvider(counter: counter, calls: told), widgets: ["com.example.clock/counter"],
            refreshInterval: .seconds(3600),
            // The hour passes when the test says so.
            sleep: { _ in for await _ in ticks { return }; try Task.checkCancellation() })
        let running = Task { try await runner.run() }
        defer { running.cancel() }
        var asked = calls.makeAsyncIterator()
        #expect(await asked.next() == .some(nil))
        tick.yield()
        #expect(await asked.next() == .some(nil))
        #expect(counter.value.load(ordering: .sequentiallyConsistent) == 2)
        // The provider was asked; its timeline is written after it answers: followed to
        // the host's view, not read at once (a loaded CI run read generation 1).
        var watch = client.watch(widget: "com.example.clock/counter", surface: .homeScreen).makeAsyncIterator()
        var current = try #require(try await watch.next())
        while Self.count(current) < 2 { current = try #require(try await watch.next()) }
        #expect(try await client.timeline(widget: "com.example.clock/counter").generation == 2)
    }

    @Test func aTimelineRunnerServesOneProvider() {
        let client = WidgetdClient(socketPath: "/nonexistent")
        let provider = CountingProvider(counter: Counter(), calls: nil)
        for widgets: Set<String> in [[], ["com.example.clock/a", "com.example.mail/b"]] {
            #expect(throws: WidgetdError.invalidParameter(parameter: "widgets")) {
                try TimelineRunner(client: client, provider: provider, widgets: widgets).providerID()
            }
        }
    }

    @Test func aHostStreamGoesContentPlaceholderContentAcrossLockAndUnlock() async throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0"])
        try daemon.start()
        let widget = "com.example.health/steps"
        let client = WidgetdClient(socketPath: daemon.socketPath)
        try await client.setPasscode(current: nil, new: Passcode("1234"))
        let runner = TimelineRunner(client: client, provider: CountingProvider(counter: Counter(), calls: nil), widgets: [widget])
        try await runner.reload(widget)

        var watch = client.watch(widget: widget, surface: .homeScreen).makeAsyncIterator()
        var modes: [PresentationMode] = []
        func nextMode() async throws -> Presentation {
            while true {
                let presentation = try #require(try await watch.next())
                if modes.last != presentation.mode {
                    modes.append(presentation.mode)
                    return presentation
                }
            }
        }
        let content = try await nextMode()
        #expect(content.entry.fields["secret"]?.value == .string("SECRET-1"))
        try await client.lock()
        let placeholder = try await nextMode()
        #expect(placeholder.entry.fields["label"]?.value == .string("Counter"))
        #expect(placeholder.entry.fields["secret"]?.value != .string("SECRET-1"))
        try await client.unlock(passcode: Passcode("1234"))
        _ = try await nextMode()
        #expect(modes == [.content, .placeholder, .content])
    }

    /// The daemon's sockets, by inode: its client connections and the ones it holds itself.
    ///
    /// Compared as sets, not counted: the daemon opens a short-lived socket of its own now
    /// and then (each try of the system bus, when there is none), which a count taken at
    /// the wrong instant would mistake for a client's connection.
    private static func sockets(of daemon: DaemonProcess) throws -> Set<String> {
        let pid = try #require(daemon.process?.processIdentifier)
        let entries = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        return Set(entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
            .filter { $0.hasPrefix("socket:") })
    }

    /// The daemon is not dumpable (no core, no ptrace), so its `/proc/PID/fd` belongs to
    /// root: only root can list the daemon's sockets.
    @Test(.enabled(if: getuid() == 0, "listing the daemon's /proc/PID/fd needs root (the daemon is not dumpable)"))
    func cancellingAStreamFreesItsConnection() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = WidgetdClient(socketPath: daemon.socketPath)
        _ = try await client.status()
        let before = try Self.sockets(of: daemon)
        let started = Counter()
        let following = Task {
            for try await _ in client.monitor() { started.value.store(1, ordering: .sequentiallyConsistent) }
        }
        #expect(try await Self.eventually { started.value.load(ordering: .sequentiallyConsistent) == 1 })
        // The stream's connection is among the sockets opened since.
        let opened = try Self.sockets(of: daemon).subtracting(before)
        #expect(!opened.isEmpty)
        following.cancel()
        // Ends cleanly: no error for a cancelled stream.
        try await following.value
        #expect(try await Self.eventually { try Self.sockets(of: daemon).isDisjoint(with: opened) })
    }

    @Test func aStreamReportsTheDaemonGoingAway() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = WidgetdClient(socketPath: daemon.socketPath)
        var events = client.monitor().makeAsyncIterator()
        _ = try await events.next()
        daemon.stop()
        await #expect(throws: WidgetdError.connectionLost) { _ = try await events.next() }
        // A call once the daemon is gone says so.
        await #expect(throws: WidgetdError.self) { _ = try await client.status() }
    }

    @Test func oneWidgetHiddenOnTheLockScreenThroughTheSwiftClient() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = WidgetdClient(socketPath: daemon.socketPath)
        let widget = "com.example.clock/hidden"
        try await client.putTimeline(
            widget: widget,
            entries: [Entry(date: Date(), fields: FieldList([("t", Field(value: .string("x"), privacy: .sensitive))]))],
            policy: .never)
        let settings = try await client.setSettings(hiddenLockScreenWidgets: [widget])
        #expect(settings.hiddenLockScreenWidgets == [try WidgetID(widget)])
        #expect(settings.lockScreenWidgetsAccess)
        try await client.lock()
        #expect(try await client.presentation(widget: widget, surface: .lockScreen).mode == .redacted)
        #expect(try await client.presentation(widget: widget, surface: .homeScreen).mode == .content)
    }

    /// A host built on the client draws fields in the provider's order: the client
    /// hands them over in that order, not sorted by name.
    @Test func theClientKeepsTheProvidersFieldOrder() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = WidgetdClient(socketPath: daemon.socketPath)
        let widget = "com.example.clock/order"
        let order = ["zulu", "alpha", "mike"]
        try await client.putTimeline(
            widget: widget,
            entries: [Entry(date: Date().addingTimeInterval(-60), fields: FieldList(order.map { ($0, Field(value: .string($0))) }))],
            policy: .never)
        #expect(try await client.presentation(widget: widget, surface: .homeScreen).entry.fields.keys == order)
        #expect(try await client.timeline(widget: widget).entries.first?.fields.keys == order)
        var watch = client.watch(widget: widget, surface: .lockScreen).makeAsyncIterator()
        #expect(try await watch.next()?.entry.fields.keys == order)
    }

    @Test func theDaemonsErrorsArriveAsTheirCases() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = WidgetdClient(socketPath: daemon.socketPath)
        await #expect(throws: WidgetdError.widgetNotFound(widget: "com.example.clock/none")) {
            _ = try await client.timeline(widget: "com.example.clock/none")
        }
        await #expect(throws: WidgetdError.providerNotRegistered(provider: "org.example.nobody")) {
            try await client.putTimeline(widget: "org.example.nobody/w", entries: [Entry(date: Date(), fields: [:])])
        }
        await #expect(throws: WidgetdError.invalidTimeline(reason: "entries[0].relevance.duration: must be a finite number of seconds, 0 or more")) {
            try await client.putTimeline(
                widget: "com.example.clock/w", entries: [Entry(date: Date(), relevance: Relevance(score: 1, duration: -1), fields: [:])])
        }
        try await client.setPasscode(current: nil, new: Passcode("1234"))
        await #expect(throws: WidgetdError.passcodeRequired) { try await client.setPasscode(current: nil, new: Passcode("5678")) }
        try await client.lock()
        await #expect(throws: WidgetdError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try await client.unlock(passcode: Passcode("0000"))
        }
        await #expect(throws: WidgetdError.invalidParameter(parameter: "confirm")) { try await client.wipe(confirm: "no") }
        await #expect(throws: WidgetdError.daemonUnavailable(socket: daemon.socketPath + ".none", errorNumber: ENOENT)) {
            _ = try await WidgetdClient(socketPath: daemon.socketPath + ".none").status()
        }
    }
}
