import FoundationEssentials
import WidgetModel
import WidgetdWire

/// Why a call to widgetd failed: the io.widgetd errors by their IDL names (with their
/// parameters), and what can go wrong on the way.
public enum WidgetdError: Error, Sendable, Equatable {
    /// `ProtectedDataUnavailable`: the timeline's class key is not available now.
    case protectedDataUnavailable
    /// `PermissionDenied` (widgetd's or Varlink's): the caller may not do this.
    case permissionDenied
    /// `WidgetNotFound(widget)`: no timeline is stored for this widget.
    case widgetNotFound(widget: String)
    /// `ProviderNotRegistered(provider)`: no provider with this id is registered.
    case providerNotRegistered(provider: String)
    /// `UnavailableOnSurface(surface)`: the widget's class may not be shown there.
    case unavailableOnSurface(surface: String)
    /// `InvalidTimeline(reason)`: the timeline is not valid.
    case invalidTimeline(reason: String)
    /// `TooLarge(limit)`: a size or quota limit would be passed; nothing was changed.
    case tooLarge(limit: Int)
    /// `WrongPasscode(failedAttempts, retryAfter?)`.
    case wrongPasscode(failedAttempts: Int, retryAfter: Double?)
    /// `TryAgainLater(retryAfter)`: too many failed attempts.
    case tryAgainLater(retryAfter: Double)
    /// `PasscodeRequired`: a passcode is required, or the current one is missing.
    case passcodeRequired
    /// `UnlockInterrupted`: a Lock overtook the Unlock; still locked, not a failed attempt.
    case unlockInterrupted
    /// `Wiped`: the device was wiped.
    case wiped
    /// `StorageFailure(reason)`: the daemon's state directory failed.
    case storageFailure(reason: String)
    /// `ActionNotAvailable(action)`: the action is not in what the surface shows now.
    case actionNotAvailable(action: String)
    /// `ProviderUnavailable(provider)`: no connection of the provider watches its actions.
    case providerUnavailable(provider: String)

    /// `org.varlink.service.InvalidParameter(parameter)`: the daemon refused a parameter.
    case invalidParameter(parameter: String)
    /// Another Varlink error (say, `MethodNotFound` from an older daemon), by name.
    case otherVarlinkError(name: String)

    /// Nothing accepts connections at the socket (no daemon, or no access: `errno` given).
    case daemonUnavailable(socket: String, errorNumber: Int32)
    /// The socket path cannot be a Unix socket address (too long, or holds a NUL).
    case invalidSocketPath(String)
    /// The daemon closed the connection before the reply, or a stream before its end:
    /// it stopped or restarted. Connect again (a new call does).
    case connectionLost
    /// Reading or writing the socket failed with `errno`.
    case io(errorNumber: Int32)
    /// The daemon's reply was not what the interface defines.
    case malformedReply(String)

    /// The error an error reply stands for: `name` and its `parameters` object.
    init(name: String, parameters: [String: JSONValue]) {
        func string(_ key: String) -> String {
            if case .string(let value)? = parameters[key] { return value }
            return ""
        }
        func number(_ key: String) -> Double? {
            if case .number(let value)? = parameters[key] { return value.doubleValue }
            return nil
        }
        guard let known = WidgetdErrorName(fullName: name) else {
            switch name {
            case "org.varlink.service.PermissionDenied": self = .permissionDenied
            case "org.varlink.service.InvalidParameter": self = .invalidParameter(parameter: string("parameter"))
            default: self = .otherVarlinkError(name: name)
            }
            return
        }
        switch known {
        case .protectedDataUnavailable: self = .protectedDataUnavailable
        case .permissionDenied: self = .permissionDenied
        case .widgetNotFound: self = .widgetNotFound(widget: string("widget"))
        case .providerNotRegistered: self = .providerNotRegistered(provider: string("provider"))
        case .unavailableOnSurface: self = .unavailableOnSurface(surface: string("surface"))
        case .invalidTimeline: self = .invalidTimeline(reason: string("reason"))
        case .tooLarge: self = .tooLarge(limit: Int(number("limit") ?? 0))
        case .wrongPasscode: self = .wrongPasscode(failedAttempts: Int(number("failedAttempts") ?? 0), retryAfter: number("retryAfter"))
        case .tryAgainLater: self = .tryAgainLater(retryAfter: number("retryAfter") ?? 0)
        case .passcodeRequired: self = .passcodeRequired
        case .unlockInterrupted: self = .unlockInterrupted
        case .wiped: self = .wiped
        case .storageFailure: self = .storageFailure(reason: string("reason"))
        case .actionNotAvailable: self = .actionNotAvailable(action: string("action"))
        case .providerUnavailable: self = .providerUnavailable(provider: string("provider"))
        }
    }
}
