import FoundationEssentials
import Glibc
import Testing
import WidgetModel
@testable import WidgetdClient
@testable import WidgetdKit

/// The WidgetKit-shaped layer maps onto widgetd's model as WidgetKit's names promise.
@Suite struct ProviderLayerTests {
    struct Weather: TimelineEntry {
        let date: Date
        let city: FieldValue
        let temperature: Int
        let location: FieldValue
        let note: String
        let ignored: [Int]
    }

    @Test func anEntrysFieldsAreItsStoredPropertiesWithTheirPrivacy() {
        let entry = Weather(
            date: Date(timeIntervalSince1970: 0), city: FieldValue("Lyon").unredacted(), temperature: 18,
            location: FieldValue("12 Rue").privacySensitive(), note: "n", ignored: [1])
        #expect(entry.modelEntry == Entry(date: Date(timeIntervalSince1970: 0), fields: [
            "city": Field(value: .string("Lyon"), privacy: .public),
            "temperature": Field(value: .number(18)),
            "location": Field(value: .string("12 Rue"), privacy: .sensitive),
            "note": Field(value: .string("n")),
        ]))
        // In the order the properties are declared: hosts draw fields in it.
        #expect(entry.modelEntry.fields.keys == ["city", "temperature", "location", "note"])
        #expect(entry.modelPlaceholder.fields.keys == ["city", "temperature", "location", "note"])
    }

    struct Renamed: TimelineEntry {
        let date: Date
        let zulu: Int
        let alpha: Int
        var fields: [String: FieldValue] {
            ["zulu": FieldValue(zulu), "extra-b": FieldValue(0), "alpha": FieldValue(alpha), "extra-a": FieldValue(1)]
        }
    }

    @Test func fieldsOfAnEntrysOwnComeInPropertyOrderThenTheRestByName() {
        let entry = Renamed(date: Date(timeIntervalSince1970: 0), zulu: 1, alpha: 2)
        #expect(entry.modelEntry.fields.keys == ["zulu", "alpha", "extra-a", "extra-b"])
    }

    @Test func privacySensitiveFalseMakesAFieldOrdinaryAgain() {
        #expect(FieldValue("x").privacySensitive().privacySensitive(false).privacy == nil)
    }

    @Test(arguments: [
        (TimelineReloadPolicy.atEnd, ReloadPolicy.atEnd), (.never, .never),
        (.after(Date(timeIntervalSince1970: 60)), .after(Date(timeIntervalSince1970: 60))),
    ])
    func reloadPoliciesMapToTheModels(policy: TimelineReloadPolicy, expected: ReloadPolicy) {
        #expect(policy.model == expected)
    }

    @Test func aPasscodeRequestIsEscapedJSONBuiltInZeroedMemory() {
        let request = SecretCall.encode("io.widgetd.Device.SetPasscode", [("current", nil), ("new", Passcode("a\"b\\c\u{1}").buffer)])
        let text = request.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(text == "{\"method\":\"io.widgetd.Device.SetPasscode\",\"parameters\":{\"new\":\"a\\\"b\\\\c\\u0001\"}}\0")
    }
}

/// A runner whose daemon is not there waits for it by its backoff, doubling, instead of
/// waiting for a subscription that never comes (it once waited forever before the stream
/// reported failing to connect) or giving up (a provider started before widgetd, or
/// across its restart, must not die); cancelled, it returns.
@Suite struct RunnerWithoutDaemonTests {
    struct Empty: TimelineEntry { let date: Date }

    struct Provider: TimelineProvider {
        func placeholder(in context: Context) -> Empty { Empty(date: Date()) }
        func timeline(in context: Context) async -> WidgetdKit.Timeline<Empty> { WidgetdKit.Timeline(entries: [], policy: .never) }
    }

    @Test(.timeLimit(.minutes(1))) func aRunnerWithoutDaemonRetriesByItsBackoffUntilCancelled() async throws {
        let client = WidgetdClient(socketPath: "/nonexistent/widgetd.sock")
        let (waits, waited) = AsyncStream.makeStream(of: Duration.self)
        let runner = TimelineRunner(
            client: client, provider: Provider(), widgets: ["com.example.clock/w"],
            backoff: ReconnectBackoff(initial: .seconds(1), maximum: .seconds(5)),
            sleep: { duration in waited.yield(duration) })
        let running = Task { try await runner.run() }
        var iterator = waits.makeAsyncIterator()
        var seen: [Duration] = []
        for _ in 0..<5 { seen.append(try #require(await iterator.next())) }
        #expect(seen == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        running.cancel()
        try await running.value
    }
}
