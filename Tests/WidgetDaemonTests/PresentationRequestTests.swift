import Testing
@testable import WidgetDaemon

/// The memory of requests is looked up with the received bytes in place: a borrowed key
/// must find exactly the remembered message with the same bytes.
@Suite struct PresentationRequestTests {
    private typealias Message = PresentationRequest.Message

    @Test func aBorrowedKeyFindsTheRememberedMessageWithTheSameBytes() throws {
        let remembered = Array(#"{"method":"io.widgetd.Host.GetPresentation","parameters":{"surface":"homeScreen","widget":"a.b/c"}}"#.utf8)
        let request = PresentationRequest(widget: try .init("a.b/c"), surface: .homeScreen)
        let requests = [Message(remembered): request]
        let received = remembered  // another array with the same bytes, as read from a socket
        let found = received.withUnsafeBytes { requests[Message.borrowing($0)] }
        #expect(found == request)
        received.withUnsafeBytes { bytes in
            #expect(Message.borrowing(bytes) == Message(remembered))
            #expect(Message.borrowing(bytes).hashValue == Message(remembered).hashValue)
        }
    }

    @Test func aBorrowedKeyWithOtherBytesFindsNothing() throws {
        let remembered = Array(#"{"method":"io.widgetd.Host.GetPresentation","parameters":{"surface":"homeScreen","widget":"a.b/c"}}"#.utf8)
        let requests = [Message(remembered): PresentationRequest(widget: try .init("a.b/c"), surface: .homeScreen)]
        var other = remembered
        other[other.count - 4] = UInt8(ascii: "d")
        #expect(other.withUnsafeBytes { requests[Message.borrowing($0)] } == nil)
        let prefix = Array(remembered.dropLast())
        #expect(prefix.withUnsafeBytes { requests[Message.borrowing($0)] } == nil)
        #expect([UInt8]().withUnsafeBytes { requests[Message.borrowing($0)] } == nil)
    }
}
