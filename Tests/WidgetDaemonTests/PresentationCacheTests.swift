import Foundation
import Testing
import WidgetCrypto
import WidgetModel
@testable import WidgetDaemon

/// The cached GetPresentation replies: reused only under the stamp and before the
/// instant they were made for, and zeroed when dropped.
@Suite struct PresentationCacheTests {
    let widget = try! WidgetID("com.example.weather/forecast")
    let other = try! WidgetID("com.example.mail/inbox")
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func stamp(_ state: DeviceState = .unlocked, available: UInt8 = 0b1111, settings: Settings = Settings()) -> PresentationCache.Stamp {
        PresentationCache.Stamp(state: state, passcodeSet: true, availableClasses: available, settings: settings)
    }

    func bytes(_ text: String) -> SecureBytes {
        try! Array(text.utf8).withUnsafeBytes { try SecureBytes(copying: $0) }
    }

    func text(_ bytes: SecureBytes?) -> String? {
        bytes.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
    }

    @Test func hitsOnlyUnderTheSameStampAndSurface() {
        var cache = PresentationCache(limit: 8)
        cache.insert(widget, .homeScreen, reply: bytes("content"), stamp: stamp(), validUntil: nil)
        #expect(text(cache.reply(widget, .homeScreen, stamp: stamp(), now: t0)) == "content")
        #expect(cache.reply(widget, .lockScreen, stamp: stamp(), now: t0) == nil)
        #expect(cache.reply(other, .homeScreen, stamp: stamp(), now: t0) == nil)
        #expect(cache.reply(widget, .homeScreen, stamp: stamp(.locked), now: t0) == nil)
        #expect(cache.reply(widget, .homeScreen, stamp: stamp(available: 0b1110), now: t0) == nil)
        var hidden = Settings()
        hidden.lockScreenWidgetsAccess = false
        #expect(cache.reply(widget, .homeScreen, stamp: stamp(settings: hidden), now: t0) == nil)
    }

    @Test func expiresWhenThePresentationChangesByItself() {
        var cache = PresentationCache(limit: 8)
        let change = t0.addingTimeInterval(60)
        cache.insert(widget, .homeScreen, reply: bytes("first entry"), stamp: stamp(), validUntil: change)
        #expect(cache.reply(widget, .homeScreen, stamp: stamp(), now: change.addingTimeInterval(-0.001)) != nil)
        #expect(cache.reply(widget, .homeScreen, stamp: stamp(), now: change) == nil)
    }

    @Test func removingAWidgetZeroesItsRepliesOnEverySurface() {
        var cache = PresentationCache(limit: 8)
        let home = bytes("home"), lock = bytes("lock"), kept = bytes("kept")
        cache.insert(widget, .homeScreen, reply: home, stamp: stamp(), validUntil: nil)
        cache.insert(widget, .lockScreen, reply: lock, stamp: stamp(), validUntil: nil)
        cache.insert(other, .homeScreen, reply: kept, stamp: stamp(), validUntil: nil)
        cache.remove(widget)
        #expect(home.count == 0 && lock.count == 0)
        #expect(cache.count == 1)
        #expect(text(cache.reply(other, .homeScreen, stamp: stamp(), now: t0)) == "kept")
    }

    @Test func aNewStampZeroesRepliesMadeUnderTheOldOne() {
        var cache = PresentationCache(limit: 8)
        let content = bytes("decrypted content")
        let placeholder = bytes("placeholder")
        cache.insert(widget, .homeScreen, reply: content, stamp: stamp(), validUntil: nil)
        cache.insert(other, .homeScreen, reply: placeholder, stamp: stamp(.locked, available: 0b0001), validUntil: nil)
        cache.removeAll(notMatching: stamp(.locked, available: 0b0001))
        #expect(content.count == 0)
        #expect(cache.count == 1)
        cache.removeAll()
        #expect(placeholder.count == 0)
        #expect(cache.count == 0)
    }

    @Test func staysWithinItsLimit() {
        var cache = PresentationCache(limit: 2)
        for (index, surface) in Surface.allCases.enumerated() {
            cache.insert(widget, surface, reply: bytes("\(index)"), stamp: stamp(), validUntil: nil)
        }
        #expect(cache.count == 2)
    }
}
