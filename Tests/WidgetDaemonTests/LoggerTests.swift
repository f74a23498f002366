import Logging
import Testing
@testable import WidgetDaemon

@Suite struct LoggerTests {
    private struct Refusal: Error, CustomStringConvertible {
        var description: String { "no room" }
    }

    @Test func dropsEventsBelowItsLevel() {
        let memory = InMemoryLogHandler()
        let logger = Logger(handler: memory, level: .notice)
        logger.debug("d", event: "d")
        logger.info("i", event: "i")
        logger.notice("n", event: "n")
        logger.error("e", event: "e")
        #expect(memory.records.map(\.message) == ["n", "e"])
    }

    @Test func aDisabledLevelBuildsNeitherMessageNorMetadata() {
        var built = 0
        func counted(_ value: String) -> String {
            built += 1
            return value
        }
        let memory = InMemoryLogHandler()
        Logger(handler: memory, level: .info)
            .debug(counted("stored"), event: "timeline_stored", metadata: ["widget.id": counted("a/b")])
        #expect(built == 0)
        #expect(memory.records.isEmpty)
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

    @Test func aCopysMetadataDoesNotReachTheOriginal() {
        let memory = InMemoryLogHandler()
        let connection = Logger(handler: memory).with("peer.uid", "1000")
        connection.with("widget.id", "a/b").info("stored", event: "timeline_stored")
        connection.info("locked", event: "lock")
        #expect(memory.records.map(\.metadata) == [["peer.uid": "1000", "widget.id": "a/b"], ["peer.uid": "1000"]])
    }

    @Test func anErrorIsLoggedUnderTheErrorKey() {
        let memory = InMemoryLogHandler()
        Logger(handler: memory).error("journal not folded", event: "checkpoint_failed", error: Refusal())
        #expect(memory.records == [
            LogRecord(level: .error, message: "journal not folded", event: "checkpoint_failed", metadata: ["error": "no room"]),
        ])
    }

    @Test func anUnexpectedErrorIsLoggedByItsTypeOnly() {
        #expect(ErrorType(of: Refusal()).description == "Refusal")
    }

    @Test func levelsMapToSyslogPriorities() {
        #expect(Logger.Level.allCases.map(\.syslogPriority) == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test func stderrLinesAreHumanReadableWithSortedMetadata() {
        let line = StderrLogHandler.format(LogRecord(
            level: .notice, message: "unlocked", event: "unlock", metadata: ["widget.id": "a/b", "peer.uid": "0"]))
        #expect(line == "notice: unlocked event=unlock peer.uid=0 widget.id=a/b")
    }

    @Test func journalFieldsAreTheStructuredFieldsOfTheEvent() {
        let memory = InMemoryLogHandler()
        Logger(handler: memory).with("peer.uid", "1000")
            .warning("unlock failed", event: "unlock_failed", error: Refusal(), metadata: ["failed_attempts": "3"])
        #expect(memory.records.map(JournalLogHandler.fields(for:)) == [[
            "MESSAGE=unlock failed", "PRIORITY=4", "SYSLOG_IDENTIFIER=widgetd", "WIDGETD_EVENT=unlock_failed",
            "ERROR=no room", "FAILED_ATTEMPTS=3", "PEER_UID=1000",
        ]])
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
