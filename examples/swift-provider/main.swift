// A weather provider written with WidgetdKit (docs/TUTORIAL.md, "Writing a provider").
//
//   example-provider [--socket PATH] [--widget ID] [--once | --act-once]
//
// Writes the widget's timeline, then answers the daemon's reload requests for its
// provider (rewriting it after widgetd restarts) until stopped; with --once it writes
// the timeline once and exits (what CI runs); with --act-once it writes it, waits for
// a host to press its "refresh" button (an AppIntent, alwaysAllowed), performs it,
// writes the timeline again and exits. The
// forecast is made up; the street the user is at is the sensitive field, hidden
// whenever the lock screen shows the widget redacted.
import FoundationEssentials
import Glibc
import WidgetdKit

/// One hour of the forecast.
struct WeatherEntry: TimelineEntry {
    let date: Date
    /// Shown even in the placeholder: the city is no secret.
    let city: FieldValue
    let temperature: FieldValue
    let condition: FieldValue
    /// Where the user is: hidden whenever the widget is shown redacted.
    let location: FieldValue

    /// A button a host may press even on the locked lock screen.
    var actions: [any WidgetActionConvertible] { [Button(intent: RefreshIntent())] }
}

/// What the "refresh" button runs, in this process, when a host presses it.
struct RefreshIntent: AppIntent {
    static let title = "Refresh"
    static let actionID = "refresh"
    /// Nothing private happens: it runs from the locked lock screen too.
    static let authenticationPolicy = IntentAuthenticationPolicy.alwaysAllowed

    func perform() async throws {
        // A real provider would fetch a new forecast here; the timeline is written after.
    }
}

struct WeatherProvider: TimelineProvider {
    func placeholder(in context: Context) -> WeatherEntry {
        WeatherEntry(
            date: Date(), city: FieldValue("Lyon").unredacted(), temperature: "-- °C", condition: "…",
            location: FieldValue("…").privacySensitive())
    }

    func timeline(in context: Context) async -> Timeline<WeatherEntry> {
        let now = Date()
        let forecast: [(celsius: Int, condition: String)] = [(18, "Sunny"), (19, "Cloudy"), (16, "Rain")]
        let entries = forecast.enumerated().map { hour, weather in
            WeatherEntry(
                date: now.addingTimeInterval(Double(hour) * 3600), city: FieldValue("Lyon").unredacted(),
                temperature: FieldValue("\(weather.celsius) °C"), condition: FieldValue(weather.condition),
                location: FieldValue("12 Rue de la République").privacySensitive())
        }
        // Asked again once the last hour has begun.
        return Timeline(entries: entries, policy: .atEnd)
    }
}

/// Writes `message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = write(2, bytes, bytes.count)
    exit(status)
}

var socket: String?
var widget = "com.example.weather/forecast"
var once = false
var actOnce = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--socket": socket = arguments.popFirst()
    case "--widget": widget = arguments.popFirst() ?? widget
    case "--once": once = true
    case "--act-once": actOnce = true
    default:
        fail("usage: example-provider [--socket PATH] [--widget ID] [--once | --act-once]", status: 64)
    }
}

let client = WidgetdClient(socketPath: socket)
let runner = TimelineRunner(client: client, provider: WeatherProvider(), widgets: [widget], family: "systemSmall")
do {
    if actOnce {
        try await runner.reload(widget)
        let intents = IntentRunner(client: client, provider: "com.example.weather", intents: [RefreshIntent.self])
        for try await delivery in client.watchActions(provider: "com.example.weather") where delivery.widget == widget {
            guard try await intents.perform(delivery) else { continue }
            let generation = try await runner.reload(widget)
            print("\(widget): performed \(delivery.action), generation \(generation)")
            break
        }
    } else if once {
        let generation = try await runner.reload(widget)
        print("\(widget): generation \(generation)")
    } else {
        try await runner.run()
    }
} catch {
    fail("example-provider: \(error)", status: 1)
}
