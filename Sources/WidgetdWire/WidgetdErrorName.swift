import Varlink

/// The error names of the io.widgetd interfaces (DESIGN §5), each `io.widgetd.` + name,
/// with the parameters the definitions give them.
///
/// The one place the names are spelt: the daemon builds its replies from these cases
/// (``VarlinkError/init(_:)``), the client library and widgetctl read replies through them,
/// and `ErrorNameTests` checks them against the interface files and that no other source
/// writes a name out.
public enum WidgetdErrorName: String, Sendable, Hashable, CaseIterable {
    /// The timeline's class key is not available in the current state.
    case protectedDataUnavailable = "io.widgetd.ProtectedDataUnavailable"
    /// The caller may not do this.
    case permissionDenied = "io.widgetd.PermissionDenied"
    /// No timeline is stored for this widget (`widget`).
    case widgetNotFound = "io.widgetd.WidgetNotFound"
    /// No provider with this id is registered (`provider`).
    case providerNotRegistered = "io.widgetd.ProviderNotRegistered"
    /// The widget's class may not be shown on this surface (`surface`).
    case unavailableOnSurface = "io.widgetd.UnavailableOnSurface"
    /// The timeline is not valid (`reason`).
    case invalidTimeline = "io.widgetd.InvalidTimeline"
    /// A size or quota limit was passed (`limit`).
    case tooLarge = "io.widgetd.TooLarge"
    /// The passcode is wrong (`failedAttempts`, `retryAfter?`).
    case wrongPasscode = "io.widgetd.WrongPasscode"
    /// Too many failed attempts (`retryAfter`).
    case tryAgainLater = "io.widgetd.TryAgainLater"
    /// A passcode is required, or the current one is missing.
    case passcodeRequired = "io.widgetd.PasscodeRequired"
    /// A Lock overtook the Unlock while the passcode was being checked.
    case unlockInterrupted = "io.widgetd.UnlockInterrupted"
    /// The device was wiped.
    case wiped = "io.widgetd.Wiped"
    /// The state directory failed (`reason`).
    case storageFailure = "io.widgetd.StorageFailure"
    /// The action is not in what the surface shows now (`action`).
    case actionNotAvailable = "io.widgetd.ActionNotAvailable"
    /// No connection of the widget's provider watches its actions (`provider`).
    case providerUnavailable = "io.widgetd.ProviderUnavailable"

    /// The error for a reply's full error name, or `nil` when widgetd defines none by that name.
    public init?(fullName: String) { self.init(rawValue: fullName) }

    /// The full error name, e.g. `io.widgetd.WrongPasscode`.
    public var fullName: String { rawValue }

    /// The name inside the interfaces, e.g. `WrongPasscode`.
    public var member: String { String(rawValue.dropFirst("io.widgetd.".count)) }
}

extension VarlinkError {
    /// The io.widgetd error `name`, without parameters.
    public init(_ name: WidgetdErrorName) {
        self.init(name: name.fullName)
    }

    /// The io.widgetd error `name` with `parameters`, which must be the ones its
    /// definition gives (see ``init(name:parameters:)`` for what cannot be encoded).
    public init(_ name: WidgetdErrorName, parameters: some Encodable) {
        self.init(name: name.fullName, parameters: parameters)
    }
}
