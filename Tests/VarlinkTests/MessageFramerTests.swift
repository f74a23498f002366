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

    @Test func viewsTheMessageInPlaceThenZeroesIt() throws {
        let framer = MessageFramer(maxMessageBytes: 100)
        let secret = bytes(#"{"parameters":{"passcode":"123456"}}"#)
        framer.append(secret + [0] + bytes("{\"tail\""))
        var calls = 0
        let seen = try framer.withNextMessage { message -> [UInt8] in
            calls += 1
            // The view is the framer's own storage: the message and its NUL are still there.
            return Array(message)
        }
        #expect(seen == secret)
        #expect(calls == 1)
        let held = framer.heldBytesForTesting
        #expect(held[0...secret.count].allSatisfy { $0 == 0 })
        #expect(contains(held, bytes("tail")))
        // An unfinished message is not shown.
        #expect(try framer.withNextMessage { _ in calls += 1 } == nil)
        #expect(calls == 1)
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

/// A small deterministic generator, so a failing split can be reproduced.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct MessageFramerSplitTests {
    @Test(arguments: 0..<20 as Range<UInt64>)
    func anySplitOfAStreamYieldsTheSameMessages(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        var messages: [[UInt8]] = []
        for index in 0..<30 {
            let byte = UInt8(ascii: "a") + UInt8(index % 26)
            messages.append(Array(repeating: byte, count: Int.random(in: 0...300, using: &random)))
        }
        let stream: [UInt8] = messages.reduce(into: []) { $0 += $1 + [0] }
        let framer = MessageFramer(maxMessageBytes: 300)
        var received: [[UInt8]] = []
        var offset = 0
        while offset < stream.count {
            let length = Int.random(in: 1...700, using: &random)
            framer.append(stream[offset..<min(offset + length, stream.count)])
            offset += length
            while let message = try framer.nextMessage() { received.append(message) }
        }
        #expect(received == messages)
        #expect(framer.pendingByteCount == 0)
        #expect(framer.heldBytesForTesting.allSatisfy { $0 == 0 })
    }
}

@Suite struct VarlinkCallRobustnessTests {
    @Test func arbitraryBytesNeverCrashTheDecoder() {
        var random = SplitMix64(state: 42)
        let alphabet = Array(#"{}[]":,.0123456789-eEtruefalsnl methodparametersmoreonewayupgrade\ "#.utf8)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...80, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            if let call = try? VarlinkCall(decoding: bytes) {
                #expect(call.method == call.interface + "." + call.member)
            }
        }
    }
}
