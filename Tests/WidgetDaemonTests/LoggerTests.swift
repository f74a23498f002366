import Testing
@testable import WidgetDaemon

@Suite struct LoggerTests {
    @Test func dropsEventsBelowItsLevel() {
        let memory = InMemoryLogHandler()
        let logger = Logger(handler: memory, level: .notice)
        logger.debug("d")
        logger.info("i")
        logger.notice("n")
        logger.error("e")
        #expect(memory.records.map(\.message) == ["n", "e"])
    }

    @Test func mergesItsMetadataWithTheEvents() {
        let memory = InMemoryLogHandler()
        let logger = Logger(handler: memory).with("peer.uid", "1000")
        logger.warning("wrong passcode", event: "unlock_failed", metadata: ["attempts": "3"])
        #expect(memory.records(event: "unlock_failed") == [
            LogRecord(level: .warning, message: "wrong passcode", event: "unlock_failed",
                      metadata: ["peer.uid": "1000", "attempts": "3"]),
        ])
    }

    @Test func levelsMapToSyslogPriorities() {
        #expect(Logger.Level.allCases.map(\.rawValue) == [2, 3, 4, 5, 6, 7])
        #expect(Logger.Level.debug < .info && Logger.Level.error > .warning)
    }

    @Test func stderrLinesAreHumanReadableWithSortedMetadata() {
        let line = StderrLogHandler.format(LogRecord(
            level: .notice, message: "unlocked", event: "unlock", metadata: ["widget.id": "a/b", "peer.uid": "0"]))
        #expect(line == "notice: unlocked event=unlock peer.uid=0 widget.id=a/b")
    }

    @Test(arguments: [
        ("peer.uid", "PEER_UID"), ("widget.id", "WIDGET_ID"), ("connection-id", "CONNECTION_ID"),
        ("_private", "PRIVATE"), ("9lives", nil), ("é", nil),
    ] as [(String, String?)])
    func metadataKeysBecomeJournalFieldNames(key: String, field: String?) {
        #expect(JournalLogHandler.fieldName(for: key) == field)
    }

    @Test func stderrIsNotTheJournalWithoutAMatchingJournalStream() {
        #expect(!JournalLogHandler.isStandardErrorJournal(environment: [:]))
        #expect(!JournalLogHandler.isStandardErrorJournal(environment: ["JOURNAL_STREAM": "1:1"]))
        #expect(!JournalLogHandler.isStandardErrorJournal(environment: ["JOURNAL_STREAM": "garbage"]))
    }
}
