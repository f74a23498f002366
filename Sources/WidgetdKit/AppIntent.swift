import WidgetModel
import WidgetdWire

/// App Intents' `IntentAuthenticationPolicy`: what a locked device asks before an
/// intent runs from a widget (DESIGN §13).
public enum IntentAuthenticationPolicy: Sendable, Hashable {
    /// Runs whatever the lock state: play/pause from the lock screen.
    case alwaysAllowed
    /// Runs at once while unlocked; while locked it waits for an unlock (held).
    case requiresAuthentication
    /// As ``requiresAuthentication``, and never from another device (`remote`).
    case requiresLocalDeviceAuthentication

    /// The policy as widgetd's model spells it.
    var model: AuthenticationPolicy {
        switch self {
        case .alwaysAllowed: .alwaysAllowed
        case .requiresAuthentication: .requiresAuthentication
        case .requiresLocalDeviceAuthentication: .requiresLocalDeviceAuthentication
        }
    }
}

/// App Intents' `AppIntent`: something a widget's button or toggle runs in its
/// provider's process, when a host performs it and widgetd delivers it.
///
/// widgetd's hosts send no parameters (DESIGN §13): what an intent does is fixed by its
/// type, named on the wire by ``actionID``. A toggle's intent conforms to
/// ``SetValueIntent`` and is given the new state. ``perform()`` usually changes
/// something and writes the widget's timeline again (`WidgetCenter.reloadTimelines`).
public protocol AppIntent: Sendable {
    /// Made by ``IntentRunner`` for each delivery.
    init()
    /// What the host shows on the button or toggle.
    static var title: String { get }
    /// What a locked device asks first; App Intents' default, `requiresAuthentication`.
    static var authenticationPolicy: IntentAuthenticationPolicy { get }
    /// The id the entry and `PerformAction` name: the type's name unless given.
    static var actionID: String { get }
    /// Runs the intent.
    func perform() async throws
}

extension AppIntent {
    /// App Intents' default: an unlock first.
    public static var authenticationPolicy: IntentAuthenticationPolicy { .requiresAuthentication }
    /// The type's name, e.g. `PlayPauseIntent`.
    public static var actionID: String { String(describing: Self.self) }
}

/// App Intents' `SetValueIntent`: a toggle's intent, given the state the host asked for.
public protocol SetValueIntent: AppIntent {
    /// The toggle's new state (the opposite of what the host showed).
    var value: Bool { get set }
}

/// What becomes a widget action in an entry: ``Button`` or ``Toggle``.
public protocol WidgetActionConvertible: Sendable {
    /// The action as widgetd's model has it.
    var widgetAction: WidgetAction { get }
}

/// SwiftUI's `Button(intent:)` on a widget: performs `intent` when a host presses it.
public struct Button: WidgetActionConvertible {
    public let widgetAction: WidgetAction

    /// A button running `intent`, titled with its ``AppIntent/title`` unless given;
    /// `privacySensitive` redacts the title as a sensitive field's value is.
    public init<Intent: AppIntent>(_ title: String? = nil, icon: String? = nil, intent: Intent, privacySensitive: Bool = false) {
        widgetAction = WidgetAction(
            id: Intent.actionID, title: title ?? Intent.title, icon: icon, kind: .button,
            authentication: Intent.authenticationPolicy.model, privacy: privacySensitive ? .sensitive : nil)
    }
}

/// SwiftUI's `Toggle(isOn:intent:)` on a widget: shows `isOn`, and performs `intent`
/// with the opposite value when a host flips it.
public struct Toggle: WidgetActionConvertible {
    public let widgetAction: WidgetAction

    /// A toggle showing `isOn`, running `intent` (a ``SetValueIntent``).
    public init<Intent: SetValueIntent>(_ title: String? = nil, icon: String? = nil, isOn: Bool, intent: Intent) {
        widgetAction = WidgetAction(
            id: Intent.actionID, title: title ?? Intent.title, icon: icon, kind: .toggle, isOn: isOn,
            authentication: Intent.authenticationPolicy.model)
    }
}

/// Runs a provider's intents as hosts perform them: follows `WatchActions` (for
/// `provider`, or every provider the caller may write for) and, for each delivery,
/// makes the intent whose ``AppIntent/actionID`` it names, gives a toggle's its new
/// value, and performs it. Deliveries naming no known intent are passed over.
///
/// ``run(whenWatching:)`` returns when its task is cancelled and throws
/// ``WidgetdError/connectionLost`` when the daemon goes away (run it again).
public struct IntentRunner: Sendable {
    private let client: WidgetdClient
    private let provider: String?
    private let intents: [String: any AppIntent.Type]

    /// A runner of `intents` for `provider`'s widgets, through `client`.
    public init(client: WidgetdClient, provider: String? = nil, intents: [any AppIntent.Type]) {
        self.client = client
        self.provider = provider
        var byID: [String: any AppIntent.Type] = [:]
        for intent in intents { byID[intent.actionID] = intent }
        self.intents = byID
    }

    /// Performs what each delivery names; `delivered` hears each delivery performed.
    /// `whenWatching` runs once the watch is sent, so a caller can then invite actions.
    public func run(
        whenWatching: (@Sendable () -> Void)? = nil, delivered: (@Sendable (ActionDelivery) async -> Void)? = nil
    ) async throws(WidgetdError) {
        do {
            for try await delivery in client.watchActions(provider: provider, whenSent: whenWatching) {
                try await perform(delivery)
                await delivered?(delivery)
            }
        } catch let error as WidgetdError {
            throw error
        } catch {
            throw .malformedReply("\(error)")
        }
    }

    /// Makes and performs the intent `delivery` names; false when none has its id.
    @discardableResult
    public func perform(_ delivery: ActionDelivery) async throws -> Bool {
        guard let type = intents[delivery.action] else { return false }
        try await Self.make(type, value: delivery.isOn).perform()
        return true
    }

    private static func make<Intent: AppIntent>(_ type: Intent.Type, value: Bool?) -> Intent {
        var intent = Intent()
        if let value, var setting = intent as? any SetValueIntent {
            setting.value = value
            if let set = setting as? Intent { intent = set }
        }
        return intent
    }
}
