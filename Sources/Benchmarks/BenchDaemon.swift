import Foundation
import Glibc

/// A real widgetd on a temporary configuration, state directory and socket, started
/// and awaited the way systemd does it (`NOTIFY_SOCKET`, `READY=1`).
final class BenchDaemon {
    /// The providers registered, one per data-protection class, owned by this uid.
    static let providers: [(id: String, protection: String)] = [
        ("com.example.health", "complete"),
        ("com.example.mail", "completeUnlessOpen"),
        ("com.example.weather", "completeUntilFirstUserAuthentication"),
        ("com.example.clock", "none"),
    ]

    let root: String
    let binary: String
    var stateDirectory: String { "\(root)/state" }
    var socketPath: String { "\(root)/run/widgetd.sock" }
    private var configFile: String { "\(root)/etc/widgetd.conf" }
    private(set) var server: ServerProcess?

    /// Writes the configuration. `PasscodeKDF=minimum` so that unlock and passcode
    /// figures measure widgetd, not Argon2id; `ClassAGraceSec=0` so a lock purges class A at once.
    init(root: String, binary: String, extra: [String] = []) throws {
        self.root = root
        self.binary = binary
        let fm = FileManager.default
        try fm.createDirectory(atPath: "\(root)/etc/providers.d", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: "\(root)/run", withIntermediateDirectories: true)
        let config = (["[Daemon]", "PasscodeKDF=minimum", "ClassAGraceSec=0"] + extra).joined(separator: "\n") + "\n"
        try config.write(toFile: configFile, atomically: true, encoding: .utf8)
        for provider in Self.providers {
            try "[Provider]\nId=\(provider.id)\nUser=\(getuid())\nDataProtection=\(provider.protection)\n"
                .write(toFile: "\(root)/etc/providers.d/\(provider.id).conf", atomically: true, encoding: .utf8)
        }
    }

    /// Starts widgetd and returns the seconds from spawning it to its `READY=1`.
    @discardableResult
    func start() throws -> Double {
        let notify = try NotifySocket(path: "\(root)/notify")
        let started = Clock.nanoseconds()
        let server = try ServerProcess(
            executable: binary,
            arguments: ["--config", configFile, "--state-directory", stateDirectory, "--socket", socketPath],
            socketPath: socketPath, log: "\(root)/widgetd.log", environment: ["NOTIFY_SOCKET": notify.path])
        try notify.waitFor("READY=1", timeout: 600) { server.process.isRunning }
        let elapsed = Double(Clock.nanoseconds() - started) / 1e9
        self.server = server
        return elapsed
    }

    /// Stops widgetd (SIGTERM) and waits for it.
    func stop() {
        server?.stop()
        server = nil
    }

    /// Kills widgetd (SIGKILL) and waits for it: a crash.
    func crash() {
        server?.crash()
        server = nil
    }

    /// A new connection to the daemon.
    func client() throws -> SocketClient { try SocketClient(path: socketPath, framing: .nulTerminated) }
}

/// Varlink requests, encoded once (the client's cost is not what is measured).
enum VarlinkRequest {
    static func encode(_ method: String, _ parameters: [String: Any] = [:]) -> [UInt8] {
        let object: [String: Any] = ["method": method, "parameters": parameters]
        // Force-try is safe: the values are strings, numbers, arrays and dictionaries.
        return Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) + [0]
    }

    /// Calls and checks that the reply is not an error.
    @discardableResult
    static func call(_ client: SocketClient, _ method: String, _ parameters: [String: Any] = [:]) throws -> [UInt8] {
        try check(client, encode(method, parameters), method)
    }

    /// Sends pre-encoded request bytes and checks that the reply is not an error.
    @discardableResult
    static func check(_ client: SocketClient, _ request: [UInt8], _ method: String) throws -> [UInt8] {
        try client.roundTrip(request)
        let reply = client.lastReply
        if reply.count > 9, reply.starts(with: Array(#"{"error":"#.utf8)) {
            throw BenchError("\(method) failed: \(String(decoding: reply.dropLast(), as: UTF8.self))")
        }
        return reply
    }

    /// An RFC 3339 date.
    static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Timeline entries whose JSON is about `bytes` long: entries an hour apart from
    /// a minute ago, each with a sensitive, a public and an ordinary field.
    static func entries(totalBytes bytes: Int, now: Date = Date()) -> [[String: Any]] {
        let count = max(1, bytes / 384)
        return (0..<count).map { i in
            [
                "date": date(now.addingTimeInterval(Double(i) * 3600 - 60)),
                "fields": [
                    "balance": ["value": "SECRET-\(i)-" + String(repeating: "x", count: 180), "privacy": "sensitive"],
                    "title": ["value": "Weather", "privacy": "public"],
                    "headline": ["value": "Sunny then rain, entry \(i) " + String(repeating: "y", count: 60)],
                ],
            ]
        }
    }

    /// Timeline entries a glance widget sends (DESIGN §12, §13), about `bytes` of JSON
    /// in all: a now-playing entry an hour apart, each field with a layout role (a
    /// title, a sensitive value, a gauge, a date, an icon) and two actions.
    static func glanceEntries(totalBytes bytes: Int, now: Date = Date()) -> [[String: Any]] {
        let count = max(1, bytes / 512)
        return (0..<count).map { i in
            let date = now.addingTimeInterval(Double(i) * 3600 - 60)
            return [
                "date": Self.date(date),
                "fields": [
                    "title": ["value": "Now playing", "role": "title", "privacy": "public"],
                    "track": ["value": "SECRET-\(i)-" + String(repeating: "x", count: 120), "role": "value", "privacy": "sensitive"],
                    "progress": ["value": 0.42, "role": "gauge"],
                    "ends": ["value": Self.date(date.addingTimeInterval(180)), "role": "date", "style": "relative"],
                    "art": ["value": "media-playback-start", "role": "icon"],
                ],
                "actions": [
                    ["id": "play-pause", "title": "Pause", "kind": "button", "icon": "media-playback-pause", "authentication": "alwaysAllowed"],
                    ["id": "shuffle", "title": "Shuffle", "kind": "toggle", "isOn": false],
                ],
            ]
        }
    }

    /// The entries a benchmark's `PutTimeline` carries.
    enum EntryShape: Sendable {
        /// `entries(totalBytes:)`: fields without roles, no actions.
        case plain
        /// `glanceEntries(totalBytes:)`: layout roles and actions.
        case glance
    }

    /// PutTimeline parameters of about `bytes` of entries.
    static func putTimeline(_ widget: String, bytes: Int, shape: EntryShape = .plain) -> [UInt8] {
        let entries = switch shape {
        case .plain: entries(totalBytes: bytes)
        case .glance: glanceEntries(totalBytes: bytes)
        }
        return encode("io.widgetd.Provider.PutTimeline", [
            "widget": widget, "family": "systemSmall", "entries": entries,
            "placeholder": ["fields": ["title": ["value": "Weather", "privacy": "public"]]],
        ])
    }
}
