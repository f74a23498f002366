import Testing
@testable import Varlink

@Suite struct MessageFramerTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func yieldsNothingUntilTheNulArrives() throws {
        let framer = MessageFramer(maxMessageBytes: 100)
        framer.append(bytes(#"{"method":"a.B""#))
        #expect(try framer.nextMessage() == nil)
        framer.append(bytes("}") + [0])
        #expect(try framer.nextMessage() == bytes(#"{"method":"a.B"}"#))
        #expect(try framer.nextMessage() == nil)
    }

    @Test func splitsSeveralMessagesFromOneRead() throws {
        let framer = MessageFramer(maxMessageBytes: 100)
        framer.append(bytes("{}") + [0] + bytes("[1]") + [0] + bytes("{\"x\""))
        #expect(try framer.nextMessage() == bytes("{}"))
        #expect(try framer.nextMessage() == bytes("[1]"))
        #expect(try framer.nextMessage() == nil)
        #expect(framer.pendingByteCount == 4)
        framer.append([0])
        #expect(try framer.nextMessage() == bytes("{\"x\""))
    }

    @Test func reassemblesAMessageDeliveredByteByByte() throws {
        let framer = MessageFramer(maxMessageBytes: 100)
        let message = bytes(#"{"method":"io.widgetd.Host.ListWidgets"}"#)
        for byte in message {
            framer.append([byte])
            #expect(try framer.nextMessage() == nil)
        }
        framer.append([0])
        #expect(try framer.nextMessage() == message)
    }

    @Test func acceptsAMessageOfExactlyTheLimit() throws {
        let framer = MessageFramer(maxMessageBytes: 8)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: 8) + [0])
        #expect(try framer.nextMessage()?.count == 8)
    }

    @Test func rejectsAnUnterminatedMessageOverTheLimit() {
        let framer = MessageFramer(maxMessageBytes: 8)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: 9))
        #expect(throws: MessageFramer.Failure.messageTooLarge(limit: 8)) { try framer.nextMessage() }
    }

    @Test func rejectsATerminatedMessageOverTheLimit() {
        let framer = MessageFramer(maxMessageBytes: 8)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: 9) + [0])
        #expect(throws: MessageFramer.Failure.messageTooLarge(limit: 8)) { try framer.nextMessage() }
    }

    @Test func zeroesConsumedMessagesInItsBuffer() throws {
        let framer = MessageFramer(maxMessageBytes: 100)
        let secret = bytes(#"{"parameters":{"passcode":"123456"}}"#)
        framer.append(secret + [0] + bytes("{\"tail\""))
        #expect(try framer.nextMessage() == secret)
        let held = framer.heldBytesForTesting
        #expect(!contains(held, bytes("123456")))
        #expect(contains(held, bytes("tail")))
    }

    @Test func resetZeroesUnfinishedBytes() {
        let framer = MessageFramer(maxMessageBytes: 100)
        framer.append(bytes(#"{"passcode":"654321""#))
        framer.reset()
        #expect(framer.pendingByteCount == 0)
        #expect(!contains(framer.heldBytesForTesting, bytes("654321")))
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
