import FoundationEssentials
import Varlink
import WidgetModel
import WidgetStore
import WidgetdWire

/// The io.widgetd errors of DESIGN §5, as the service raises them: every handler
/// throws this one type, and ``VarlinkTransport/CallContext/fail(with:method:)`` answers it.
///
/// Each maps to one Varlink error name (a `WidgetdErrorName`, the one place the names are
/// spelt) with its documented parameters. None of them carries secret material: a reason
/// names the entry and field, never a value. The
/// errors of the layers below enter it in one place each: the store's through
/// ``fromStore(_:)`` (``store(_:)``), a timeline's through ``fromTimeline(_:)``.
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
    /// The action is not in what the surface shows now.
    case actionNotAvailable(String)
    /// No connection of the widget's provider watches its actions.
    case providerUnavailable(String)
    /// A parameter the interface allows but whose value is wrong (standard Varlink error).
    case invalidParameter(String)
    /// A standard Varlink error of the protocol layer (a parameter that does not decode,
    /// `ExpectedMore`), answered as it is.
    case varlink(VarlinkError)
    /// What the store refused or failed; ``answering(_:)`` says what the client is told.
    case store(StoreError)
    /// An error nobody expected, kept by its type alone (its description could quote its
    /// input): answered `StorageFailure("internal error")` and logged by its type.
    case unexpected(ErrorType)

    /// An error's parameters: a JSON object.
    private static func object(_ members: [String: JSONValue]) -> [String: JSONValue] { members }

    /// The error as it goes on the wire.
    var varlinkError: VarlinkError {
        switch self {
        case .protectedDataUnavailable: VarlinkError(.protectedDataUnavailable)
        case .permissionDenied(let provider, let user, let group):
            VarlinkError(
                .permissionDenied,
                parameters: Self.object(
                    [
                        "provider": provider.map(JSONValue.string), "user": user.map { .number(JSONNumber(Int($0))) },
                        "group": group.map { .number(JSONNumber(Int($0))) },
                    ].compactMapValues { $0 }))
        case .widgetNotFound(let widget): VarlinkError(.widgetNotFound, parameters: Self.object(["widget": .string(widget)]))
        case .providerNotRegistered(let provider):
            VarlinkError(.providerNotRegistered, parameters: Self.object(["provider": .string(provider)]))
        case .unavailableOnSurface(let surface):
            VarlinkError(.unavailableOnSurface, parameters: Self.object(["surface": .string(surface.rawValue)]))
        case .invalidTimeline(let reason): VarlinkError(.invalidTimeline, parameters: Self.object(["reason": .string(reason)]))
        case .tooLarge(let limit): VarlinkError(.tooLarge, parameters: Self.object(["limit": .number(JSONNumber(limit))]))
        case .wrongPasscode(let failed, let retryAfter):
            VarlinkError(
                .wrongPasscode,
                parameters: Self.object(retryAfter.map { ["failedAttempts": .number(JSONNumber(failed)), "retryAfter": .number(JSONNumber($0))] }
                    ?? ["failedAttempts": .number(JSONNumber(failed))]))
        case .tryAgainLater(let retryAfter):
            VarlinkError(.tryAgainLater, parameters: Self.object(["retryAfter": .number(JSONNumber(retryAfter))]))
        case .passcodeRequired: VarlinkError(.passcodeRequired)
        case .unlockInterrupted: VarlinkError(.unlockInterrupted)
        case .wiped: VarlinkError(.wiped)
        case .storageFailure(let reason): VarlinkError(.storageFailure, parameters: Self.object(["reason": .string(reason)]))
        case .actionNotAvailable(let action):
            VarlinkError(.actionNotAvailable, parameters: Self.object(["action": .string(action)]))
        case .providerUnavailable(let provider):
            VarlinkError(.providerUnavailable, parameters: Self.object(["provider": .string(provider)]))
        case .invalidParameter(let name): VarlinkError.invalidParameter(name)
        case .varlink(let error): error
        case .store(let error): (Self.answering(error) ?? .storageFailure("\(error)")).varlinkError
        case .unexpected: ServiceError.storageFailure("internal error").varlinkError
        }
    }

    /// The error a client can act on for a store error, or `nil` for the failures an
    /// administrator must see (corruption, I/O): those are logged and answered
    /// `StorageFailure` naming them.
    static func answering(_ error: StoreError) -> ServiceError? {
        switch error {
        case .protectedDataUnavailable: .protectedDataUnavailable
        // The store's error names no widget: the reply carries an empty one.
        case .widgetNotFound: .widgetNotFound("")
        case .tooLarge(let limit), .tooManyWidgets(let limit): .tooLarge(limit: limit)
        case .wrongPasscode(let failed, let retryAfter): .wrongPasscode(failedAttempts: failed, retryAfter: retryAfter)
        case .tryAgainLater(let retryAfter): .tryAgainLater(retryAfter: retryAfter)
        case .passcodeRequired: .passcodeRequired
        case .unlockInterrupted: .unlockInterrupted
        case .wiped: .wiped
        default: nil
        }
    }

    /// Runs a store operation; its error becomes ``store(_:)``. The one door from the
    /// store's errors into the service's.
    static func fromStore<T>(_ operation: () throws(StoreError) -> T) throws(ServiceError) -> T {
        do { return try operation() } catch { throw .store(error) }
    }

    /// Runs a timeline check or decoding; its error becomes ``invalidTimeline(_:)``.
    static func fromTimeline<T>(_ operation: () throws(InvalidTimeline) -> T) throws(ServiceError) -> T {
        do { return try operation() } catch { throw .invalidTimeline(error.reason) }
    }
}

extension VarlinkCall {
    /// The call's parameters as `P`; parameters that do not decode are the standard
    /// Varlink error naming the parameter (``ServiceError/varlink(_:)``).
    func decodedParameters<P: Decodable>(_ type: P.Type) throws(ServiceError) -> P {
        do { return try parameters(type) } catch { throw .varlink(error) }
    }

    /// The call's string parameters `names`, read as `decodedParameters` would read a
    /// struct of them (``VarlinkCall/stringParameters(_:)``), without its decoder.
    func decodedStrings(_ names: [StaticString]) throws(ServiceError) -> [String] {
        do { return try stringParameters(names) } catch { throw .varlink(error) }
    }
}
