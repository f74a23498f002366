import Foundation
import SecureMemory
import Testing
import WidgetModel
@testable import WidgetDaemon

/// The memory of requests is looked up with the received bytes in place: exactly the
/// remembered message with the same bytes finds its slot.
@Suite struct PresentationRequestTests {
    let message = Array(#"{"method":"io.widgetd.Host.GetPresentation","parameters":{"surface":"homeScreen","widget":"a.b/c"}}"#.utf8)
    let stamp = PresentationCache.Stamp(state: .unlocked, passcodeSet: false, availableClasses: 0b1111, settings: Settings())

    /// A cache holding one reply for `widget` on the home screen, and its slot.
    func cached(_ widget: String) throws -> (PresentationCache, PresentationCache.Slot) {
        var cache = PresentationCache(limit: 8)
        cache.removeAll(notMatching: stamp)
        let reply = try Array("reply".utf8).withUnsafeBytes { try SecureBytes(copying: $0) }
        let id = try WidgetID(widget)
        cache.insert(id, .homeScreen, reply: reply, protection: nil, stamp: stamp, validUntil: nil)
        return (cache, try #require(cache.slot(id, .homeScreen)))
    }

    @Test func theSameBytesFindTheRememberedSlot() throws {
        let (_, slot) = try cached("a.b/c")
        var table = PresentationRequestTable(capacity: 16, maxMessageBytes: 512)
        message.withUnsafeBytes { table.remember($0, slot: slot) }
        let received = message  // another array with the same bytes, as read from a socket
        #expect(received.withUnsafeBytes { table.slot(for: $0) } === slot)
        #expect(table.count == 1)
    }

    @Test(arguments: [0, 1, 7, 8, 9, 64])
    func otherBytesFindNothing(seed: UInt64) throws {
        let (_, slot) = try cached("a.b/c")
        var table = PresentationRequestTable(capacity: 16, maxMessageBytes: 512, seed: seed)
        message.withUnsafeBytes { table.remember($0, slot: slot) }
        var other = message
        other[other.count - 4] = UInt8(ascii: "d")
        #expect(other.withUnsafeBytes { table.slot(for: $0) } == nil)
        let prefix = Array(message.dropLast())
        #expect(prefix.withUnsafeBytes { table.slot(for: $0) } == nil)
        #expect([UInt8]().withUnsafeBytes { table.slot(for: $0) } == nil)
    }

    @Test func rememberingTheSameBytesAgainReplacesTheSlot() throws {
        let (_, first) = try cached("a.b/c")
        let (_, second) = try cached("a.b/c")
        var table = PresentationRequestTable(capacity: 16, maxMessageBytes: 512)
        message.withUnsafeBytes { table.remember($0, slot: first) }
        message.withUnsafeBytes { table.remember($0, slot: second) }
        #expect(message.withUnsafeBytes { table.slot(for: $0) } === second)
        #expect(table.count == 1)
    }

    @Test func aFullTableStartsOverAndAnOversizedMessageIsNotRemembered() throws {
        let (_, slot) = try cached("a.b/c")
        var table = PresentationRequestTable(capacity: 4, maxMessageBytes: 64)
        let messages = (0..<5).map { Array("request \($0)".utf8) }
        for message in messages { message.withUnsafeBytes { table.remember($0, slot: slot) } }
        #expect(table.count == 1)
        #expect(messages[4].withUnsafeBytes { table.slot(for: $0) } === slot)
        #expect(messages[0].withUnsafeBytes { table.slot(for: $0) } == nil)
        message.withUnsafeBytes { table.remember($0, slot: slot) }
        #expect(message.withUnsafeBytes { table.slot(for: $0) } == nil)
        // Many messages, every one found among the others (probing past collisions).
        var large = PresentationRequestTable(capacity: 4096, maxMessageBytes: 512, seed: 0)
        let many = (0..<4096).map { Array("{\"widget\":\"w/\($0)\"}".utf8) }
        for message in many { message.withUnsafeBytes { large.remember($0, slot: slot) } }
        #expect(large.count == 4096)
        #expect(many.allSatisfy { message in message.withUnsafeBytes { large.slot(for: $0) } === slot })
    }
}
