import Testing
import Varlink
import WidgetModel
import WidgetStore

@testable import WidgetDaemon

/// The store's errors reach a client as the io.widgetd error it can act on; the others
/// (corruption, I/O) as `StorageFailure` naming them, never as something else.
@Suite struct ServiceErrorTests {
    @Test(arguments: [
        (StoreError.protectedDataUnavailable, "io.widgetd.ProtectedDataUnavailable"),
        (.widgetNotFound, "io.widgetd.WidgetNotFound"),
        (.tooLarge(limit: 10), "io.widgetd.TooLarge"),
        (.tooManyWidgets(limit: 3), "io.widgetd.TooLarge"),
        (.wrongPasscode(failedAttempts: 2, retryAfter: nil), "io.widgetd.WrongPasscode"),
        (.tryAgainLater(retryAfter: 5), "io.widgetd.TryAgainLater"),
        (.passcodeRequired, "io.widgetd.PasscodeRequired"),
        (.unlockInterrupted, "io.widgetd.UnlockInterrupted"),
        (.wiped, "io.widgetd.Wiped"),
        (.noPasscodeSet, "io.widgetd.StorageFailure"),
        (.corrupt(file: "keybag", reason: .authenticationFailure), "io.widgetd.StorageFailure"),
    ])
    func aStoreErrorIsAnsweredAsTheErrorAClientCanActOn(error: StoreError, name: String) {
        #expect(ServiceError.store(error).varlinkError.name == name)
        // Only the failures an administrator must see are left for `fail` to log.
        #expect((ServiceError.answering(error) == nil) == (name == "io.widgetd.StorageFailure"))
    }

    @Test func aStoreFailureNamesItselfAndAnUnexpectedErrorOnlyThatItWasInternal() {
        let corrupt = StoreError.corrupt(file: "keybag", reason: .authenticationFailure)
        #expect(ServiceError.store(corrupt).varlinkError == ServiceError.storageFailure("\(corrupt)").varlinkError)
        #expect(ServiceError.unexpected(ErrorType(of: CancellationError())).varlinkError
            == ServiceError.storageFailure("internal error").varlinkError)
        #expect(ServiceError.varlink(.expectedMore).varlinkError == .expectedMore)
    }

    @Test func aTimelineProblemIsInvalidTimelineWithItsReason() throws {
        #expect(throws: ServiceError.invalidTimeline("entries[0].date: bad")) {
            try ServiceError.fromTimeline { () throws(InvalidTimeline) in throw InvalidTimeline(reason: "entries[0].date: bad") }
        }
    }
}
