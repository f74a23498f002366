import Foundation
import Testing

@testable import WidgetDaemon

/// The cached fast path (`cachedReply`) answers exactly what the decoded path would,
/// and every change a host must see shows on the very next read, cached or not.
@Suite struct ServiceCachedReplyTests {
    static let weather = ServiceHarness.widgets[.completeUntilFirstUserAuthentication]!
    static let health = ServiceHarness.widgets[.complete]!

    static func request(_ widget: String, _ surface: String = "homeScreen") -> [UInt8] {
        ServiceHarness.message("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": surface])
    }

    static func balance(_ reply: [String: Any]?) -> String? {
        let presentation = (reply?["parameters"] as? [String: Any])?["presentation"] as? [String: Any]
        let fields = (presentation?["entry"] as? [String: Any])?["fields"] as? [String: Any]
        return (fields?["balance"] as? [String: Any])?["value"] as? String
    }

    /// Reads `widget` once through the decoded path, so that its reply is cached and the
    /// request's bytes remembered.
    static func warm(_ harness: ServiceHarness, _ widget: String, _ surface: String = "homeScreen") -> [String: Any] {
        let call = harness.call("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": surface])
        return call.replies.last ?? [:]
    }

    @Test func aRepeatedRequestIsAnsweredFromTheCacheWithWhatTheDecodedPathSent() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather, secret: "FIRST"))
        #expect(harness.cachedReply(Self.request(Self.weather)) == nil, "nothing is cached before the first read")
        let decoded = Self.warm(harness, Self.weather)
        let cached = try #require(harness.cachedReply(Self.request(Self.weather)))
        #expect(NSDictionary(dictionary: cached) == NSDictionary(dictionary: decoded))
        #expect(Self.balance(cached) == "FIRST")
    }

    /// The visibility rule (docs/ARCHITECTURE.md): a read sees every write acknowledged
    /// before it, on the cached path as on the decoded one, and waits for no write of
    /// another connection that is not acknowledged yet.
    @Test func aReadSeesAWriteAcknowledgedBeforeItAndWaitsForNoOtherWrite() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather, secret: "FIRST"))
        _ = Self.warm(harness, Self.weather)
        #expect(Self.balance(harness.cachedReply(Self.request(Self.weather))) == "FIRST")

        // Accepted, not yet committed nor answered: the loop has not turned.
        let write = harness.call(
            "io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather, secret: "SECOND"), run: false)
        #expect(!write.isAnswered)
        let cached = harness.cachedReply(Self.request(Self.weather))
        #expect(cached == nil, "accepting the write empties the widget's cache slots")
        let decoded = harness.call("io.widgetd.Host.GetPresentation", ["widget": Self.weather, "surface": "homeScreen"], run: false)
        // Not waited for: the stored generation, and the write still commits on its own.
        #expect(Self.balance(decoded.replies.last) == "FIRST")
        #expect(!write.isAnswered)
        harness.scheduler.run()
        #expect(write.isAnswered && write.error == nil)
        #expect(Self.balance(harness.call("io.widgetd.Host.GetPresentation", ["widget": Self.weather, "surface": "homeScreen"]).replies.last) == "SECOND")
        #expect(Self.balance(harness.cachedReply(Self.request(Self.weather))) == "SECOND")
    }

    @Test func aLockShowsOnTheNextCachedRead() throws {
        let harness = try ServiceHarness()
        harness.putEveryClass()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        #expect(Self.warm(harness, Self.health)["error"] == nil)
        #expect(harness.cachedReply(Self.request(Self.health)) != nil)
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.cachedReply(Self.request(Self.health)) == nil)
        #expect(harness.mode(Self.health) == "placeholder")
        // The placeholder is what the cache answers from now on.
        let cached = harness.cachedReply(Self.request(Self.health))
        #expect((cached?["parameters"] as? [String: Any]).flatMap { ($0["presentation"] as? [String: Any])?["mode"] as? String } == "placeholder")
    }

    @Test func newSettingsShowOnTheNextCachedRead() throws {
        let harness = try ServiceHarness()
        harness.putEveryClass()
        harness.ok("io.widgetd.Device.Lock")
        _ = Self.warm(harness, Self.weather, "lockScreen")
        #expect(harness.cachedReply(Self.request(Self.weather, "lockScreen")) != nil)
        harness.ok("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false])
        #expect(harness.cachedReply(Self.request(Self.weather, "lockScreen")) == nil)
        #expect(harness.mode(Self.weather, "lockScreen") == "redacted")
    }

    @Test func aDeletionShowsOnTheNextCachedRead() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather))
        _ = Self.warm(harness, Self.weather)
        harness.ok("io.widgetd.Provider.DeleteTimeline", ["widget": Self.weather])
        #expect(harness.cachedReply(Self.request(Self.weather)) == nil)
        #expect(harness.mode(Self.weather) == "placeholder")
    }

    /// A reload can take a peer's role away: its next cached read is checked again.
    @Test func aConfigurationReloadChecksEachPeerAgainBeforeItsNextCachedRead() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather))
        _ = Self.warm(harness, Self.weather)
        var configuration = harness.configuration
        configuration.providers = []
        harness.service.device.reconfigure(
            Authorization(configuration: configuration, daemonUID: 0), store: DaemonRuntime.storeConfiguration(configuration))
        // Registrations changed: the cache starts over.
        #expect(harness.cachedReply(Self.request(Self.weather)) == nil)
    }
}
