import Foundation
import SecureMemory
import Testing
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
        cache.insert(widget, .homeScreen, reply: bytes("content"), protection: nil, stamp: stamp(), validUntil: nil)
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
        cache.insert(widget, .homeScreen, reply: bytes("first entry"), protection: nil, stamp: stamp(), validUntil: change)
        #expect(cache.reply(widget, .homeScreen, stamp: stamp(), now: change.addingTimeInterval(-0.001)) != nil)
        #expect(cache.reply(widget, .homeScreen, stamp: stamp(), now: change) == nil)
    }

    @Test func removingAWidgetZeroesItsRepliesOnEverySurface() {
        var cache = PresentationCache(limit: 8)
        let home = bytes("home"), lock = bytes("lock"), kept = bytes("kept")
        cache.insert(widget, .homeScreen, reply: home, protection: nil, stamp: stamp(), validUntil: nil)
        cache.insert(widget, .lockScreen, reply: lock, protection: nil, stamp: stamp(), validUntil: nil)
        cache.insert(other, .homeScreen, reply: kept, protection: nil, stamp: stamp(), validUntil: nil)
        cache.remove(widget)
        #expect(home.count == 0 && lock.count == 0)
        #expect(cache.count == 1)
        #expect(text(cache.reply(other, .homeScreen, stamp: stamp(), now: t0)) == "kept")
    }

    @Test func aNewStampZeroesRepliesMadeUnderTheOldOne() {
        var cache = PresentationCache(limit: 8)
        let content = bytes("decrypted content")
        let placeholder = bytes("placeholder")
        cache.insert(widget, .homeScreen, reply: content, protection: nil, stamp: stamp(), validUntil: nil)
        cache.insert(other, .homeScreen, reply: placeholder, protection: nil, stamp: stamp(.locked, available: 0b0001), validUntil: nil)
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
            cache.insert(widget, surface, reply: bytes("\(index)"), protection: nil, stamp: stamp(), validUntil: nil)
        }
        #expect(cache.count == 2)
    }
}

/// The slots that the memory of requests points at: a slot answers only while its reply
/// is cached, under the current stamp, before its instant.
@Suite struct PresentationCacheSlotTests {
    let widget = try! WidgetID("com.example.weather/forecast")
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let unlocked = PresentationCache.Stamp(state: .unlocked, passcodeSet: true, availableClasses: 0b1111, settings: Settings())
    let locked = PresentationCache.Stamp(state: .locked, passcodeSet: true, availableClasses: 0b0001, settings: Settings())

    func bytes(_ text: String) -> SecureBytes {
        try! Array(text.utf8).withUnsafeBytes { try SecureBytes(copying: $0) }
    }

    @Test func aSlotAnswersUnderTheCurrentStampBeforeItsInstantOnly() throws {
        var cache = PresentationCache(limit: 8)
        cache.removeAll(notMatching: unlocked)
        let reply = bytes("content")
        cache.insert(widget, .homeScreen, reply: reply, protection: nil, stamp: unlocked, validUntil: t0.addingTimeInterval(60))
        let slot = try #require(cache.slot(widget, .homeScreen))
        #expect(cache.replyBytes(in: slot, now: t0)?.baseAddress == reply.withUnsafeBytes { $0.baseAddress })
        #expect(cache.replyBytes(in: slot, now: t0.addingTimeInterval(60)) == nil)
        // A lock: the slot is dropped and zeroed, and answers nothing any more.
        cache.removeAll(notMatching: locked)
        #expect(cache.replyBytes(in: slot, now: t0) == nil)
        #expect(slot.reply == nil && reply.count == 0)
    }

    /// The hot path's view (no retain) answers exactly when the reply does, shows the
    /// reply's own secure bytes, and is cleared with them.
    @Test func aSlotsViewIsItsReplysBytesAndAnswersOnlyWhenTheReplyDoes() throws {
        var cache = PresentationCache(limit: 8)
        cache.removeAll(notMatching: unlocked)
        let reply = bytes("content")
        cache.insert(widget, .homeScreen, reply: reply, protection: nil, stamp: unlocked, validUntil: t0.addingTimeInterval(60))
        let slot = try #require(cache.slot(widget, .homeScreen))
        let view = try #require(cache.replyBytes(in: slot, now: t0))
        #expect(String(decoding: view, as: UTF8.self) == "content")
        #expect(reply.withUnsafeBytes { $0.baseAddress } == view.baseAddress)
        #expect(cache.replyBytes(in: slot, now: t0.addingTimeInterval(60)) == nil)
        // Replaced: the old slot's view is gone and its bytes zeroed; the new slot answers.
        cache.insert(widget, .homeScreen, reply: bytes("second"), protection: nil, stamp: unlocked, validUntil: nil)
        #expect(cache.replyBytes(in: slot, now: t0) == nil && slot.replyBytes.count == 0 && reply.count == 0)
        let next = try #require(cache.slot(widget, .homeScreen))
        #expect(cache.replyBytes(in: next, now: t0).map { String(decoding: $0, as: UTF8.self) } == "second")
        // A lock drops it too.
        cache.removeAll(notMatching: locked)
        #expect(cache.replyBytes(in: next, now: t0) == nil && next.replyBytes.count == 0)
    }

    @Test func aReplyMadeUnderAnotherStampThanTheCurrentOneIsNotServedFromItsSlot() throws {
        var cache = PresentationCache(limit: 8)
        cache.removeAll(notMatching: locked)
        cache.insert(widget, .homeScreen, reply: bytes("content"), protection: nil, stamp: unlocked, validUntil: nil)
        let slot = try #require(cache.slot(widget, .homeScreen))
        #expect(cache.replyBytes(in: slot, now: t0) == nil)
        // Once that stamp becomes the current one, it is.
        cache.removeAll(notMatching: unlocked)
        #expect(cache.replyBytes(in: slot, now: t0) != nil)
    }

    @Test func aReplacedOrRemovedReplyEmptiesItsOldSlot() throws {
        var cache = PresentationCache(limit: 8)
        cache.removeAll(notMatching: unlocked)
        let first = bytes("first")
        cache.insert(widget, .homeScreen, reply: first, protection: nil, stamp: unlocked, validUntil: nil)
        let old = try #require(cache.slot(widget, .homeScreen))
        cache.insert(widget, .homeScreen, reply: bytes("second"), protection: nil, stamp: unlocked, validUntil: nil)
        #expect(cache.replyBytes(in: old, now: t0) == nil && first.count == 0)
        let new = try #require(cache.slot(widget, .homeScreen))
        #expect(cache.replyBytes(in: new, now: t0) != nil)
        cache.remove(widget)
        #expect(cache.replyBytes(in: new, now: t0) == nil)
    }
}
