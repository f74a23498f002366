/// Every method of the io.widgetd interfaces, named once for the daemon, widgetctl and
/// the client library (a test checks the cases against the interface definitions).
public enum WidgetdMethod: String, Sendable, Hashable, CaseIterable {
    // io.widgetd.Device
    /// `GetStatus() -> (state, passcodeSet, classes, failedAttempts, retryAfter?, settings, warnings?)`.
    case getStatus = "io.widgetd.Device.GetStatus"
    /// `SetPasscode(current?, new?)`: set, change or remove the passcode.
    case setPasscode = "io.widgetd.Device.SetPasscode"
    /// `Unlock(passcode)`.
    case unlock = "io.widgetd.Device.Unlock"
    /// `Lock()`.
    case lock = "io.widgetd.Device.Lock"
    /// `Wipe(confirm: "WIPE")`.
    case wipe = "io.widgetd.Device.Wipe"
    /// `GetSettings() -> (settings)`.
    case getSettings = "io.widgetd.Device.GetSettings"
    /// `SetSettings(lockScreenWidgetsAccess?, hiddenLockScreenWidgets?, hideSensitiveComplications?, hiddenComplications?) -> (settings)`.
    case setSettings = "io.widgetd.Device.SetSettings"
    /// `ReportPasscodeOutOfStep() -> ()`: the passcode no longer follows the login password.
    case reportPasscodeOutOfStep = "io.widgetd.Device.ReportPasscodeOutOfStep"
    /// `Monitor() -> (event)`, streamed.
    case monitor = "io.widgetd.Device.Monitor"

    // io.widgetd.Provider
    /// `PutTimeline(widget, family?, entries, policy?, placeholder?) -> (generation)`.
    case putTimeline = "io.widgetd.Provider.PutTimeline"
    /// `AppendEntries(widget, entries) -> (generation)`.
    case appendEntries = "io.widgetd.Provider.AppendEntries"
    /// `GetTimeline(widget) -> (family?, entries, policy, generation)`.
    case getTimeline = "io.widgetd.Provider.GetTimeline"
    /// `CloseTimeline(widget)`.
    case closeTimeline = "io.widgetd.Provider.CloseTimeline"
    /// `DeleteTimeline(widget)`.
    case deleteTimeline = "io.widgetd.Provider.DeleteTimeline"
    /// `WatchReloads(provider?) -> (widget, reason)`, streamed.
    case watchReloads = "io.widgetd.Provider.WatchReloads"
    /// `WatchActions(provider?) -> (id, widget, action, isOn?, surface, whileLocked)`, streamed.
    case watchActions = "io.widgetd.Provider.WatchActions"
    /// `ListProviders() -> (providers, disabled?)`: the registered providers the caller may see.
    case listProviders = "io.widgetd.Provider.ListProviders"

    // io.widgetd.Host
    /// `ListWidgets(provider?, after?, limit?) -> (widgets, next?)`.
    case listWidgets = "io.widgetd.Host.ListWidgets"
    /// `GetPresentation(widget, surface) -> (presentation)`.
    case getPresentation = "io.widgetd.Host.GetPresentation"
    /// `Watch(widget, surface) -> (presentation)`, streamed.
    case watch = "io.widgetd.Host.Watch"
    /// `ReloadTimelines(provider?, kind?)`.
    case reloadTimelines = "io.widgetd.Host.ReloadTimelines"
    /// `PerformAction(widget, surface, action) -> (outcome)`, with `more` for a held one's end.
    case performAction = "io.widgetd.Host.PerformAction"
    /// `WatchWidgets() -> (event, widget)`, streamed.
    case watchWidgets = "io.widgetd.Host.WatchWidgets"

    /// The method for a call's full name, or `nil` when widgetd declares none by that name.
    public init?(fullName: String) { self.init(rawValue: fullName) }

    /// The full name as a call carries it, e.g. `io.widgetd.Device.Unlock`.
    public var fullName: String { rawValue }

    /// The interface that declares it.
    public var interface: WidgetdInterface {
        switch self {
        case .getStatus, .setPasscode, .unlock, .lock, .wipe, .getSettings, .setSettings, .reportPasscodeOutOfStep,
            .monitor:
            .device
        case .putTimeline, .appendEntries, .getTimeline, .closeTimeline, .deleteTimeline, .watchReloads, .watchActions,
            .listProviders:
            .provider
        case .listWidgets, .getPresentation, .watch, .reloadTimelines, .performAction, .watchWidgets: .host
        }
    }

    /// The member name inside its interface, e.g. `Unlock`.
    public var member: String { String(rawValue.dropFirst(interface.rawValue.count + 1)) }

    /// Whether the method streams its replies (it must be called with `more`).
    public var streams: Bool {
        switch self {
        case .monitor, .watchReloads, .watch, .watchActions, .watchWidgets: true
        default: false
        }
    }
}
