/// Everything the first phase of the decision needs, none of it secret:
/// it is all known while locked, before any timeline is decrypted.
public struct PresentationContext: Sendable, Hashable {
    /// The widget being shown.
    public var widget: WidgetID
    /// Where it is shown.
    public var surface: Surface
    /// The device's lock state.
    public var state: DeviceState
    /// Whether a passcode is set (without one, class B is readable while locked).
    public var passcodeSet: Bool
    /// The widget provider's data-protection class.
    public var protectionClass: ProtectionClass
    /// The user's settings.
    public var settings: Settings

    /// Makes a context.
    public init(
        widget: WidgetID, surface: Surface, state: DeviceState, passcodeSet: Bool,
        protectionClass: ProtectionClass, settings: Settings
    ) {
        self.widget = widget
        self.surface = surface
        self.state = state
        self.passcodeSet = passcodeSet
        self.protectionClass = protectionClass
        self.settings = settings
    }
}
