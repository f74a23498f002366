import FoundationEssentials
import Varlink
import WidgetModel
import WidgetStore

/// The io.widgetd errors of DESIGN §5, as the service raises them.
///
/// Each maps to one Varlink error name with its documented parameters. None of them
/// carries secret material: a reason names the entry and field, never a value.
enum ServiceError: Error, Equatable {
    case protectedDataUnavailable
    /// Refused; for a widget the caller may not provide, its provider and that
    /// provider's `User=`/`Group=` when registered.
    case permissionDenied(provider: String?, user: UInt32?, group: UInt32?)
    case widgetNotFound(String)
    case providerNotRegistered(String)
    case unavailableOnSurface(Surface)
    case invalidTimeline(String)
    case tooLarge(limit: Int)
    case wrongPasscode(failedAttempts: Int, retryAfter: Double?)
    case tryAgainLater(retryAfter: Double)
    case passcodeRequired
    /// The passcode was right, but a Lock arrived while it was being checked: still locked.
    case unlockInterrupted
    case wiped
    /// The state directory failed (disk full, I/O error, corrupt file); the reason names
    /// the operation, never content.
    case storageFailure(String)
    /// A parameter the interface allows but whose value is wrong (standard Varlink error).
    case invalidParameter(String)

    /// An error's parameters: a JSON object.
    private static func object(_ members: [String: JSONValue]) -> [String: JSONValue] { members }

    /// The error as it goes on the wire.
    var varlinkError: VarlinkError {
        switch self {
        case .protectedDataUnavailable: VarlinkError(name: "io.widgetd.ProtectedDataUnavailable")
        case .permissionDenied(let provider, let user, let group):
            VarlinkError(
                name: "io.widgetd.PermissionDenied",
                parameters: Self.object(
                    [
                        "provider": provider.map(JSONValue.string), "user": user.map { .number(JSONNumber(Int($0))) },
                        "group": group.map { .number(JSONNumber(Int($0))) },
                    ].compactMapValues { $0 }))
        case .widgetNotFound(let widget): VarlinkError(name: "io.widgetd.WidgetNotFound", parameters: Self.object(["widget": .string(widget)]))
        case .providerNotRegistered(let provider):
            VarlinkError(name: "io.widgetd.ProviderNotRegistered", parameters: Self.object(["provider": .string(provider)]))
        case .unavailableOnSurface(let surface):
            VarlinkError(name: "io.widgetd.UnavailableOnSurface", parameters: Self.object(["surface": .string(surface.rawValue)]))
        case .invalidTimeline(let reason): VarlinkError(name: "io.widgetd.InvalidTimeline", parameters: Self.object(["reason": .string(reason)]))
        case .tooLarge(let limit): VarlinkError(name: "io.widgetd.TooLarge", parameters: Self.object(["limit": .number(JSONNumber(limit))]))
        case .wrongPasscode(let failed, let retryAfter):
            VarlinkError(
                name: "io.widgetd.WrongPasscode",
                parameters: Self.object(retryAfter.map { ["failedAttempts": .number(JSONNumber(failed)), "retryAfter": .number(JSONNumber($0))] }
                    ?? ["failedAttempts": .number(JSONNumber(failed))]))
        case .tryAgainLater(let retryAfter):
            VarlinkError(name: "io.widgetd.TryAgainLater", parameters: Self.object(["retryAfter": .number(JSONNumber(retryAfter))]))
        case .passcodeRequired: VarlinkError(name: "io.widgetd.PasscodeRequired")
        case .unlockInterrupted: VarlinkError(name: "io.widgetd.UnlockInterrupted")
        case .wiped: VarlinkError(name: "io.widgetd.Wiped")
        case .storageFailure(let reason): VarlinkError(name: "io.widgetd.StorageFailure", parameters: Self.object(["reason": .string(reason)]))
        case .invalidParameter(let name): VarlinkError.invalidParameter(name)
        }
    }
}
