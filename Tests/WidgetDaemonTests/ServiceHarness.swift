import Foundation
import Testing
import TestSupport
import Varlink
import VarlinkTransport
import WidgetModel
import WidgetStore
import WidgetdPOSIX

@testable import WidgetDaemon

/// A `WidgetService` over a store in a temporary directory, driven by a ``ManualScheduler``:
/// calls go in as Varlink messages, replies are collected per call. No socket, no thread,
/// no real time.
final class ServiceHarness {
    /// One provider per class, as the integration tests' daemon registers them.
    static let providers: [(id: String, protection: ProtectionClass)] = [
        ("com.example.health", .complete),
        ("com.example.mail", .completeUnlessOpen),
        ("com.example.weather", .completeUntilFirstUserAuthentication),
        ("com.example.clock", .none),
    ]
    /// A widget of each class.
    static let widgets: [ProtectionClass: String] = [
        .complete: "com.example.health/rings", .completeUnlessOpen: "com.example.mail/inbox",
        .completeUntilFirstUserAuthentication: "com.example.weather/forecast", .none: "com.example.clock/world",
    ]
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    let root: String
    let scheduler: ManualScheduler
    let configuration: Configuration
    private(set) var store: TimelineStore!
    private(set) var service: WidgetService!
    private var nextConnection: UInt64 = 1

    init(classAGrace: Double = 10, configure: (inout Configuration) -> Void = { _ in }) throws {
        root = "/tmp/widgetd-service-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        var configuration = Configuration()
        configuration.classAGraceSeconds = classAGrace
        configuration.passcodeKDF = .minimum
        configuration.providers = Self.providers.map {
            ProviderRegistration(id: $0.id, uid: 0, gid: nil, dataProtection: $0.protection, file: "\($0.id).conf")
        }
        configure(&configuration)
        self.configuration = configuration
        scheduler = ManualScheduler(now: Self.start)
        (store, service) = try Self.open(root: root, configuration: configuration, scheduler: scheduler)
        scheduler.run()
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    private static func open(
        root: String, configuration: Configuration, scheduler: ManualScheduler
    ) throws -> (TimelineStore, WidgetService) {
        let store = try TimelineStore(
            stateDirectory: "\(root)/state", credentialsDirectory: nil,
            configuration: DaemonRuntime.storeConfiguration(configuration), journalCapacity: 64 << 10, journalFolding: .atOnce, now: scheduler.now)
        let service = WidgetService(
            scheduler: scheduler, store: store, authorization: Authorization(configuration: configuration, daemonUID: 0),
            limits: .default, logger: .disabled)
        return (store, service)
    }

    /// A restart: the store and service are released (keys zeroed) and opened again; the
    /// loop runs (indexing every stored timeline) unless `run` is false.
    func restart(run: Bool = true) throws {
        service.commitPendingWrites()
        // Released first, as a stopped daemon's are: its keys zeroed, its journal closed.
        service = nil
        store = nil
        (store, service) = try Self.open(root: root, configuration: configuration, scheduler: scheduler)
        if run { scheduler.run() }
    }

    /// One call and what came back.
    final class Call {
        /// Every reply, decoded (`parameters`, `error`, `continues`).
        var replies: [[String: Any]] = []
        /// Every reply's bytes as sent (its terminating NUL dropped).
        var encoded: [[UInt8]] = []
        /// Whether the final reply came.
        var isAnswered = false
        /// Each reply's protection, as the connection would mark it (`nil`: none).
        var protections: [ReplyProtection?] = []
        var connectionOpen = true
        /// Runs when the final reply comes, as a connection then starts its next call.
        var onFinalReply: () -> Void = {}

        /// The last reply's parameters.
        var parameters: [String: Any] { replies.last?["parameters"] as? [String: Any] ?? [:] }
        /// The last reply's error name, if it is one.
        var error: String? { replies.last?["error"] as? String }
        /// The last reply's presentation mode.
        var mode: String? { (parameters["presentation"] as? [String: Any])?["mode"] as? String }
    }

    /// The encoded message of a call.
    static func message(_ method: String, _ parameters: [String: Any]?, more: Bool = false) -> [UInt8] {
        var object: [String: Any] = ["method": method]
        if let parameters { object["parameters"] = parameters }
        if more { object["more"] = true }
        return Array(try! JSONSerialization.data(withJSONObject: object, options: .sortedKeys))
    }

    /// Makes a call as root on a connection of its own (or `connection`), and runs the
    /// loop unless `run` is false (then handed-over work waits: a derivation's verdict,
    /// a commit).
    @discardableResult
    func call(
        _ method: String, _ parameters: [String: Any]? = nil, more: Bool = false, connection: UInt64? = nil,
        peer: PeerCredentials = PeerCredentials(pid: 1, uid: 0, gid: 0), run: Bool = true
    ) -> Call {
        let call = Call()
        let id = connection ?? { nextConnection += 1; return nextConnection }()
        let context = CallContext(
            connection: ConnectionID(rawValue: id), peer: peer, wantsMore: more, isOneway: false, logger: .disabled,
            deliverProtected: { bytes, isFinal, protection in
                let json = Data(bytes.dropLast())
                call.encoded.append(Array(bytes.dropLast()))
                call.replies.append((try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:])
                if let protection, !(protection is ReplyProtection) { Issue.record("a reply tagged with a foreign tag") }
                call.protections.append(protection as? ReplyProtection)
                if isFinal {
                    call.isAnswered = true
                    call.onFinalReply()
                }
            },
            isConnectionOpen: { call.connectionOpen })
        service.handle(try! VarlinkCall(decoding: Self.message(method, parameters, more: more)), context: context)
        if run { scheduler.run() }
        return call
    }

    /// Asserts a call succeeded and returns its parameters.
    @discardableResult
    func ok(
        _ method: String, _ parameters: [String: Any]? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String: Any] {
        let call = call(method, parameters)
        #expect(call.isAnswered && call.error == nil, "\(method): \(call.replies)", sourceLocation: sourceLocation)
        return call.parameters
    }

    /// The cached fast path's answer to exactly `message`, decoded, or `nil` when it
    /// sends the message down the decoded path.
    func cachedReply(_ message: [UInt8], connection: UInt64 = 999) -> [String: Any]? {
        var permit: UInt64 = 0
        var protection: (any OutputTag)?
        let bytes = message.withUnsafeBytes { message in
            service.cachedReply(
                to: message, connection: ConnectionID(rawValue: connection), peer: PeerCredentials(pid: 1, uid: 0, gid: 0),
                now: scheduler.now, permit: &permit, protection: &protection
            ).map { Array($0) }
        }
        guard let bytes else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes.dropLast()))) as? [String: Any]
    }

    // MARK: Fixtures

    static func rfc3339(_ date: Date) -> String { TimelineFixtures.rfc3339(date) }

    static func entry(at date: Date, secret: String = "SECRET-4711", headline: String = "Sunny") -> [String: Any] {
        TimelineFixtures.entry(at: date, secret: secret, headline: headline)
    }

    static var placeholder: [String: Any] { ["fields": ["title": ["value": "Weather", "privacy": "public"]]] }

    /// A timeline of two entries around `now` (the second an hour ahead).
    func putParameters(_ widget: String, secret: String = "SECRET-4711") -> [String: Any] {
        let now = scheduler.now
        return [
            "widget": widget, "family": "systemSmall", "placeholder": Self.placeholder,
            "entries": [Self.entry(at: now.addingTimeInterval(-60), secret: secret), Self.entry(at: now.addingTimeInterval(3600), secret: secret)],
        ]
    }

    /// Writes one timeline per class and waits for the commit.
    func putEveryClass() {
        for widget in Self.widgets.values { ok("io.widgetd.Provider.PutTimeline", putParameters(widget)) }
    }

    /// The mode `widget` is shown in on `surface` now (the decoded path).
    func mode(_ widget: String, _ surface: String = "homeScreen") -> String? {
        call("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": surface]).mode
    }

    /// The classes whose keys are held, as `GetStatus` says.
    func heldClasses() -> Set<String> {
        let classes = ok("io.widgetd.Device.GetStatus")["classes"] as? [[String: Any]] ?? []
        return Set(classes.filter { $0["keyAvailable"] as? Bool == true }.compactMap { $0["class"] as? String })
    }

    /// The device state, as `GetStatus` says.
    func state() -> String? { ok("io.widgetd.Device.GetStatus")["state"] as? String }
}
