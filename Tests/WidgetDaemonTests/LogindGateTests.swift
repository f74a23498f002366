import Testing
@testable import WidgetDaemon

/// DESIGN §8: only logind speaks for logind. A signal counts only when its sender is the
/// current unique owner of `org.freedesktop.login1`, as the bus driver said, and it is a
/// broadcast.
@Suite struct LogindGateTests {
    static let driver = LogindGate.busDriver

    /// A gate that learnt from the driver that `:1.7` owns the name.
    private func gate(owner: String? = ":1.7") -> LogindGate {
        var gate = LogindGate()
        #expect(gate.nameOwnerReply(owner, sender: Self.driver) == nil)
        return gate
    }

    /// Who sent a signal, to whom, and what the gate says.
    @Test(arguments: [
        (":1.7", nil, nil),
        (":1.7", ":1.12", .addressed),
        (":1.9", nil, .notTheOwner),
        (":1.9", ":1.12", .addressed),
        // A well-known name is not what the bus writes as a sender; it is never the owner.
        ("org.freedesktop.login1", nil, .notTheOwner),
        (nil, nil, .notTheOwner),
    ] as [(String?, String?, LogindGate.Refusal?)])
    func aSignalCountsOnlyAsABroadcastFromTheCurrentOwner(
        _ sender: String?, _ destination: String?, _ refusal: LogindGate.Refusal?
    ) {
        #expect(gate().refusal(sender: sender, destination: destination) == refusal)
    }

    @Test func beforeTheDriverAnswersNoSignalCounts() {
        #expect(LogindGate().refusal(sender: ":1.7", destination: nil) == .ownerUnknown)
    }

    @Test func whileTheNameHasNoOwnerNoSignalCounts() {
        #expect(gate(owner: nil).refusal(sender: ":1.7", destination: nil) == .ownerUnknown)
        #expect(gate(owner: "").refusal(sender: "", destination: nil) == .ownerUnknown)
    }

    @Test func anAnswerAboutTheOwnerCountsOnlyFromTheBusDriver() {
        var gate = gate()
        #expect(gate.nameOwnerReply(":1.9", sender: ":1.9") == .notTheBusDriver)
        #expect(gate.nameOwnerChanged(newOwner: ":1.9", sender: ":1.9", destination: nil) == .refused(.notTheBusDriver))
        // The driver's NameOwnerChanged is a broadcast.
        #expect(gate.nameOwnerChanged(newOwner: ":1.9", sender: Self.driver, destination: ":1.12") == .refused(.addressed))
        #expect(gate.owner == ":1.7")
    }

    /// logind restarting: the old owner's signals stop counting when the driver says the
    /// name was released, a new connection's start counting only once the driver says it
    /// took the name.
    @Test func logindRestartingHandsTheNameToTheNewOwnerOnly() {
        var gate = gate()
        #expect(gate.refusal(sender: ":1.20", destination: nil) == .notTheOwner)
        #expect(gate.nameOwnerChanged(newOwner: "", sender: Self.driver, destination: nil) == .gone)
        #expect(gate.refusal(sender: ":1.7", destination: nil) == .ownerUnknown)
        #expect(gate.nameOwnerChanged(newOwner: ":1.20", sender: Self.driver, destination: nil) == .started)
        #expect(gate.refusal(sender: ":1.20", destination: nil) == nil)
        #expect(gate.refusal(sender: ":1.7", destination: nil) == .notTheOwner)
    }
}

/// What anyone can cause at will is logged at a bounded rate.
@Suite struct LogRateLimitTests {
    @Test func atMostTheBurstPerIntervalThenOneLineSaysHowManyWereLeftOut() {
        var limit = LogRateLimit(burst: 3, interval: 60)
        let first = (0..<1000).map { limit.admit(at: 100 + Double($0) / 100) }
        #expect(first.prefix(3) == [0, 0, 0])
        #expect(first.dropFirst(3).allSatisfy { $0 == nil })
        // The next interval: its first line counts what the last one left out.
        #expect(limit.admit(at: 160) == 997)
        #expect(limit.admit(at: 161) == 0)
    }

    @Test func aClockSetBackStartsANewIntervalInsteadOfSilencingTheLog() {
        var limit = LogRateLimit(burst: 1, interval: 60)
        #expect(limit.admit(at: 1000) == 0)
        #expect(limit.admit(at: 1001) == nil)
        #expect(limit.admit(at: 10) == 1)
        #expect(limit.admit(at: 11) == nil)
    }
}
