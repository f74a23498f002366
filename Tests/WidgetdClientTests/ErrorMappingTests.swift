import Testing
import WidgetModel
import WidgetdWire
@testable import WidgetdClient

/// Every error the IDL defines arrives as its case, with its parameters.
@Suite struct ErrorMappingTests {
    static let table: [(WidgetdErrorName, [String: JSONValue], WidgetdError)] = [
        (.protectedDataUnavailable, [:], .protectedDataUnavailable),
        (.permissionDenied, [:], .permissionDenied),
        (.widgetNotFound, ["widget": .string("a/b")], .widgetNotFound(widget: "a/b")),
        (.providerNotRegistered, ["provider": .string("org.x")], .providerNotRegistered(provider: "org.x")),
        (.unavailableOnSurface, ["surface": .string("lockScreen")], .unavailableOnSurface(surface: "lockScreen")),
        (.invalidTimeline, ["reason": .string("entries[0].date")], .invalidTimeline(reason: "entries[0].date")),
        (.tooLarge, ["limit": .number(65536)], .tooLarge(limit: 65536)),
        (.wrongPasscode, ["failedAttempts": .number(5), "retryAfter": .number(60)], .wrongPasscode(failedAttempts: 5, retryAfter: 60)),
        (.tryAgainLater, ["retryAfter": .number(252)], .tryAgainLater(retryAfter: 252)),
        (.passcodeRequired, [:], .passcodeRequired),
        (.unlockInterrupted, [:], .unlockInterrupted),
        (.wiped, [:], .wiped),
        (.storageFailure, ["reason": .string("write timeline")], .storageFailure(reason: "write timeline")),
        (.actionNotAvailable, ["action": .string("open")], .actionNotAvailable(action: "open")),
        (.providerUnavailable, ["provider": .string("org.x")], .providerUnavailable(provider: "org.x")),
    ]

    @Test func theTableCoversEveryErrorOfTheInterfaces() {
        #expect(Set(Self.table.map(\.0)) == Set(WidgetdErrorName.allCases))
    }

    @Test(arguments: table)
    func everyIDLErrorMapsToItsCase(name: WidgetdErrorName, parameters: [String: JSONValue], expected: WidgetdError) {
        #expect(WidgetdError(name: name.fullName, parameters: parameters) == expected)
    }

    @Test func wrongPasscodeWithoutAWaitHasNoRetryAfter() {
        #expect(WidgetdError(name: "io.widgetd.WrongPasscode", parameters: ["failedAttempts": .number(1)])
            == .wrongPasscode(failedAttempts: 1, retryAfter: nil))
    }

    @Test func varlinkServiceErrorsKeepTheirMeaning() {
        #expect(WidgetdError(name: "org.varlink.service.PermissionDenied", parameters: [:]) == .permissionDenied)
        #expect(WidgetdError(name: "org.varlink.service.InvalidParameter", parameters: ["parameter": .string("surface")])
            == .invalidParameter(parameter: "surface"))
        #expect(WidgetdError(name: "org.varlink.service.MethodNotFound", parameters: ["method": .string("x")])
            == .otherVarlinkError(name: "org.varlink.service.MethodNotFound"))
    }
}
