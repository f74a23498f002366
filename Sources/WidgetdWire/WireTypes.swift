import FoundationEssentials
import Varlink
import WidgetModel

// The parameters and replies of the io.widgetd.* methods, as DESIGN §5 and the
// interface files in interfaces/ spell them: one set for the daemon (which encodes
// replies and decodes parameters), widgetctl and the client library (the reverse).
// Only shapes live here; the methods' behaviour lives in the daemon's service.

/// A method with no parameters, or a reply with none.
public struct Empty: Codable, Sendable, Equatable {
    /// The empty object.
    public init() {}
}

// MARK: io.widgetd.Device

/// `ClassStatus`: whether a protection class's key is released.
public struct ClassStatus: Codable, Sendable, Equatable {
    /// The protection class.
    public var `class`: ProtectionClass
    /// Whether its key is in memory now.
    public var keyAvailable: Bool

    /// A class's status.
    public init(class: ProtectionClass, keyAvailable: Bool) {
        self.class = `class`
        self.keyAvailable = keyAvailable
    }
}

/// The reply of `Device.GetStatus`.
public struct StatusReply: Codable, Sendable, Equatable {
    /// The lock state.
    public var state: DeviceState
    /// Whether a passcode is set.
    public var passcodeSet: Bool
    /// Each class and whether its key is available.
    public var classes: [ClassStatus]
    /// Failed unlock attempts since the last success.
    public var failedAttempts: Int
    /// Seconds before the next `Unlock` is accepted, if any must pass.
    public var retryAfter: Double?
    /// The current settings.
    public var settings: Settings
    /// What an administrator must know; `nil` (the key omitted) when there is none.
    /// A reader keeps only the warnings it knows.
    public var warnings: [StatusWarning]?
    /// False once the passcode is out of step with the login password
    /// (`ReportPasscodeOutOfStep`), until a `SetPasscode` succeeds; `nil` from a daemon
    /// that predates it.
    public var passcodeInStep: Bool?
    /// Why the device is locked (DESIGN §8): `client`, `session`, `sleep`, `sessionEnd`,
    /// `inactivity` or `start`; `nil` (the key omitted) while unlocked.
    public var lockedBy: String?
    /// The watched logind sessions; `nil` (the key omitted) when sessions are not followed.
    public var sessions: [String]?
    /// What is in force against a stolen disk and a restored backup (DESIGN §9); `nil`
    /// from a daemon that predates it.
    public var protection: Protection?
    /// Seconds before the class-A key is purged after a lock; `nil` (the key omitted)
    /// when no purge is pending.
    public var classAGraceEndsIn: Double?
    /// Seconds before the locked device needs the passcode again (`RequirePasscodeAfterSec=`);
    /// `nil` (the key omitted) unless locked with it on.
    public var passcodeRequiredIn: Double?

    /// A status reply.
    public init(
        state: DeviceState, passcodeSet: Bool, classes: [ClassStatus], failedAttempts: Int, retryAfter: Double?,
        settings: Settings, warnings: [StatusWarning]?, passcodeInStep: Bool? = nil, lockedBy: String? = nil,
        sessions: [String]? = nil, protection: Protection? = nil, classAGraceEndsIn: Double? = nil,
        passcodeRequiredIn: Double? = nil
    ) {
        self.state = state
        self.passcodeSet = passcodeSet
        self.classes = classes
        self.failedAttempts = failedAttempts
        self.retryAfter = retryAfter
        self.settings = settings
        self.warnings = warnings
        self.passcodeInStep = passcodeInStep
        self.lockedBy = lockedBy
        self.sessions = sessions
        self.protection = protection
        self.classAGraceEndsIn = classAGraceEndsIn
        self.passcodeRequiredIn = passcodeRequiredIn
    }

    private enum CodingKeys: String, CodingKey {
        case state, passcodeSet, classes, failedAttempts, retryAfter, settings, warnings, passcodeInStep, lockedBy, sessions,
            protection, classAGraceEndsIn, passcodeRequiredIn
    }

    /// Decodes a reply; a warning a newer daemon sends that this build does not know is
    /// left out rather than failing the whole status.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(DeviceState.self, forKey: .state)
        passcodeSet = try container.decode(Bool.self, forKey: .passcodeSet)
        classes = try container.decode([ClassStatus].self, forKey: .classes)
        failedAttempts = try container.decode(Int.self, forKey: .failedAttempts)
        retryAfter = try container.decodeIfPresent(Double.self, forKey: .retryAfter)
        settings = try container.decode(Settings.self, forKey: .settings)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings)?.compactMap(StatusWarning.init(rawValue:))
        passcodeInStep = try container.decodeIfPresent(Bool.self, forKey: .passcodeInStep)
        lockedBy = try container.decodeIfPresent(String.self, forKey: .lockedBy)
        sessions = try container.decodeIfPresent([String].self, forKey: .sessions)
        protection = try container.decodeIfPresent(Protection.self, forKey: .protection)
        classAGraceEndsIn = try container.decodeIfPresent(Double.self, forKey: .classAGraceEndsIn)
        passcodeRequiredIn = try container.decodeIfPresent(Double.self, forKey: .passcodeRequiredIn)
    }
}

/// `GetStatus.protection` (DESIGN §9): what holds the device key, what counts failed
/// passcode attempts, and how far a restored backup is detected. Strings, as sent, so
/// a newer daemon's value is shown rather than failing the status.
public struct Protection: Codable, Sendable, Equatable {
    /// `file` (`STATE/device.key`), `credential` (a systemd credential) or `tpm2` (a TPM-sealed blob).
    public var deviceKey: String
    /// `software` (the keybag's counter, which a restored keybag resets) or `tpm2`
    /// (the TPM's dictionary-attack protection).
    public var attempts: String
    /// `catalog` (a single restored timeline file is refused) or `tpm2` (a restored
    /// keybag or catalog is refused too, against the TPM's NV counter).
    public var rollback: String

    /// A protection summary.
    public init(deviceKey: String, attempts: String, rollback: String) {
        self.deviceKey = deviceKey
        self.attempts = attempts
        self.rollback = rollback
    }
}

/// The parameters of `Device.Wipe`.
public struct WipeParameters: Codable, Sendable, Equatable {
    /// Must be `"WIPE"`.
    public var confirm: String

    /// Wipe parameters.
    public init(confirm: String) { self.confirm = confirm }
}

/// The reply of `Device.GetSettings` and `SetSettings`.
public struct SettingsReply: Codable, Sendable, Equatable {
    /// Every setting.
    public var settings: Settings

    /// A settings reply.
    public init(settings: Settings) { self.settings = settings }
}

/// The parameters of `Device.SetSettings`: the settings to change.
public struct SetSettingsParameters: Codable, Sendable, Equatable {
    /// "Lock Screen widgets: allow access when locked".
    public var lockScreenWidgetsAccess: Bool?
    /// Widget ids redacted on a locked lock screen even while access is on.
    public var hiddenLockScreenWidgets: [String]?
    /// One of `off`, `all` or `selected`.
    public var hideSensitiveComplications: String?
    /// Widget ids hidden on the always-on display when the setting is `selected`.
    public var hiddenComplications: [String]?

    /// The settings to change; `nil` leaves one as it is.
    public init(
        lockScreenWidgetsAccess: Bool? = nil, hiddenLockScreenWidgets: [String]? = nil,
        hideSensitiveComplications: String? = nil, hiddenComplications: [String]? = nil
    ) {
        self.lockScreenWidgetsAccess = lockScreenWidgetsAccess
        self.hiddenLockScreenWidgets = hiddenLockScreenWidgets
        self.hideSensitiveComplications = hideSensitiveComplications
        self.hiddenComplications = hiddenComplications
    }
}

/// A device event streamed by `Monitor`.
public struct DeviceEvent: Codable, Sendable, Equatable {
    /// What changed.
    public enum Kind: String, Codable, Sendable { case state, settings }
    /// What changed.
    public var kind: Kind
    /// The lock state after the change.
    public var state: DeviceState
    /// Whether a passcode is set.
    public var passcodeSet: Bool
    /// The settings after the change.
    public var settings: Settings
    /// Why the device is locked, as in `StatusReply`; `nil` while unlocked.
    public var lockedBy: String?
    /// Whether the passcode is in step with the login password, as in `StatusReply`.
    public var passcodeInStep: Bool?
    /// The watched logind sessions, as in `StatusReply`; `nil` when none are followed.
    public var sessions: [String]?

    /// A device event.
    public init(
        kind: Kind, state: DeviceState, passcodeSet: Bool, settings: Settings, lockedBy: String? = nil,
        passcodeInStep: Bool? = nil, sessions: [String]? = nil
    ) {
        self.kind = kind
        self.state = state
        self.passcodeSet = passcodeSet
        self.settings = settings
        self.lockedBy = lockedBy
        self.passcodeInStep = passcodeInStep
        self.sessions = sessions
    }
}

/// One reply of `Device.Monitor`.
public struct DeviceEventReply: Codable, Sendable, Equatable {
    /// The event.
    public var event: DeviceEvent

    /// A monitor reply.
    public init(event: DeviceEvent) { self.event = event }
}

// MARK: io.widgetd.Provider

/// The parameters of the methods that take only a widget id.
public struct WidgetParameters: Codable, Sendable, Equatable {
    /// The widget id.
    public var widget: String

    /// Parameters naming a widget.
    public init(widget: String) { self.widget = widget }
}

/// The parameters of `Provider.PutTimeline`.
public struct PutTimelineParameters: Codable, Sendable, Equatable {
    /// The widget id.
    public var widget: String
    /// The widget family, e.g. `systemSmall`.
    public var family: String?
    /// The new entries.
    public var entries: [Entry]
    /// When to be asked for a new timeline (`atEnd` when absent).
    public var policy: ReloadPolicy?
    /// Shown while content is unavailable; kept until replaced.
    public var placeholder: Placeholder?

    /// A timeline to write.
    public init(widget: String, family: String?, entries: [Entry], policy: ReloadPolicy?, placeholder: Placeholder?) {
        self.widget = widget
        self.family = family
        self.entries = entries
        self.policy = policy
        self.placeholder = placeholder
    }
}

/// The parameters of `Provider.AppendEntries`.
public struct AppendEntriesParameters: Codable, Sendable, Equatable {
    /// The widget id.
    public var widget: String
    /// The entries to append.
    public var entries: [Entry]

    /// Entries to append.
    public init(widget: String, entries: [Entry]) {
        self.widget = widget
        self.entries = entries
    }
}

/// The reply of `Provider.PutTimeline` and `AppendEntries`.
public struct GenerationReply: Codable, Sendable, Equatable {
    /// The timeline's generation after the write.
    public var generation: UInt64

    /// A generation reply.
    public init(generation: UInt64) { self.generation = generation }

    /// The whole reply, NUL-terminated, written directly into one array of its exact
    /// size (no `String`, no intermediate array): it answers every write. Same bytes as
    /// `VarlinkReply.encode(parameters: self)` (a test compares them).
    public var encodedReply: [UInt8] {
        let opening: StaticString = #"{"parameters":{"generation":"#
        var digits = 1
        var rest = generation / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let count = opening.utf8CodeUnitCount + digits + 3
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let start = UnsafeBufferPointer(start: opening.utf8Start, count: opening.utf8CodeUnitCount)
            _ = buffer.initialize(fromContentsOf: start)
            var value = generation
            for index in stride(from: start.count + digits - 1, through: start.count, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            buffer[count - 3] = UInt8(ascii: "}")
            buffer[count - 2] = UInt8(ascii: "}")
            buffer[count - 1] = 0
            initialized = count
        }
    }
}

/// The reply of `Provider.GetTimeline`.
public struct TimelineReply: Codable, Sendable, Equatable {
    /// The widget family, if the provider gave one.
    public var family: String?
    /// The stored entries.
    public var entries: [Entry]
    /// The reload policy.
    public var policy: ReloadPolicy
    /// The timeline's generation.
    public var generation: UInt64

    /// A timeline reply.
    public init(family: String?, entries: [Entry], policy: ReloadPolicy, generation: UInt64) {
        self.family = family
        self.entries = entries
        self.policy = policy
        self.generation = generation
    }
}

/// `WatchReloads(provider?)`: the one provider whose reload requests the stream carries
/// (`nil`: every provider the caller may provide).
public struct WatchReloadsParameters: Codable, Sendable, Equatable {
    /// The provider id, e.g. `com.example.weather`.
    public var provider: String?

    /// A subscription, to one provider's requests or to all the caller may hear.
    public init(provider: String? = nil) { self.provider = provider }
}

/// A reload request streamed by `WatchReloads`.
public struct ReloadRequest: Codable, Sendable, Equatable {
    /// Why the provider is asked.
    public enum Reason: String, Codable, Sendable {
        /// The timeline's reload policy came due.
        case due
        /// A host asked (`ReloadTimelines`).
        case requested
    }
    /// The widget to reload.
    public var widget: String
    /// Why.
    public var reason: Reason

    /// A reload request.
    public init(widget: String, reason: Reason) {
        self.widget = widget
        self.reason = reason
    }
}

// MARK: io.widgetd.Host

/// `WidgetInfo`: a stored widget, as `ListWidgets` lists it.
public struct WidgetInfo: Codable, Sendable, Equatable {
    /// The widget id.
    public var widget: String
    /// The provider id (the id's prefix).
    public var provider: String
    /// The widget kind (the id's rest).
    public var kind: String
    /// The widget family, if the provider gave one.
    public var family: String?
    /// The provider's protection class.
    public var `class`: ProtectionClass
    /// The timeline's generation.
    public var generation: UInt64

    /// A widget's listing.
    public init(widget: String, provider: String, kind: String, family: String?, class: ProtectionClass, generation: UInt64) {
        self.widget = widget
        self.provider = provider
        self.kind = kind
        self.family = family
        self.class = `class`
        self.generation = generation
    }
}

/// `ListWidgets(provider?, after?, limit?)`: without `limit` every widget (so a
/// client that never pages keeps working); with it one page in widget id order.
public struct ListWidgetsParameters: Codable, Sendable, Equatable {
    /// Only this provider's widgets.
    public var provider: String?
    /// The page starts after this widget id (a previous page's `next`).
    public var after: String?
    /// At most this many widgets (1 or more).
    public var limit: Int?

    /// A listing request.
    public init(provider: String? = nil, after: String? = nil, limit: Int? = nil) {
        self.provider = provider
        self.after = after
        self.limit = limit
    }

    private enum CodingKeys: String, CodingKey { case provider, after, limit }

    /// Decodes the parameters, naming `limit` when it is not an integer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        provider = try container.decodeIfPresent(String.self, forKey: .provider)
        after = try container.decodeIfPresent(String.self, forKey: .after)
        do {
            limit = try container.decodeIfPresent(Int.self, forKey: .limit)
        } catch {
            // JSONDecoder reports a fraction (`1.5`) without the key: name it.
            throw DecodingError.typeMismatch(
                Int.self, DecodingError.Context(codingPath: container.codingPath + [CodingKeys.limit], debugDescription: "not an integer"))
        }
    }
}

/// The reply of `Host.ListWidgets`.
public struct ListWidgetsReply: Codable, Sendable, Equatable {
    /// The widgets of this page (or all of them).
    public var widgets: [WidgetInfo]
    /// The last widget of a page when more follow: pass it as `after`. Absent otherwise.
    public var next: String?

    /// A listing.
    public init(widgets: [WidgetInfo], next: String?) {
        self.widgets = widgets
        self.next = next
    }
}

/// The parameters of `Host.GetPresentation` and `Watch`.
public struct PresentationParameters: Codable, Sendable, Equatable {
    /// The widget id.
    public var widget: String
    /// The surface, e.g. `lockScreen`.
    public var surface: String

    /// A presentation request.
    public init(widget: String, surface: String) {
        self.widget = widget
        self.surface = surface
    }
}

/// The reply of `Host.GetPresentation`, and each of `Watch`.
public struct PresentationReply: Codable, Sendable, Equatable {
    /// What the surface may show now.
    public var presentation: Presentation

    /// A presentation reply.
    public init(presentation: Presentation) { self.presentation = presentation }
}

/// The parameters of `Host.ReloadTimelines`: all providers' widgets, or those given.
public struct ReloadTimelinesParameters: Codable, Sendable, Equatable {
    /// Only this provider's widgets.
    public var provider: String?
    /// Only widgets of this kind.
    public var kind: String?

    /// A reload request.
    public init(provider: String? = nil, kind: String? = nil) {
        self.provider = provider
        self.kind = kind
    }
}

/// `Provider.ListProviders`'s `ProviderInfo`: one registered provider.
public struct ProviderInfo: Codable, Sendable, Equatable {
    /// The provider id, e.g. `com.example.weather`.
    public var id: String
    /// The class its timelines are stored under.
    public var `class`: ProtectionClass
    /// `User=`: the uid that may write for it.
    public var user: UInt32?
    /// `Group=`: members of this gid may write for it.
    public var group: UInt32?
    /// `App=`: the Flatpak application id whose sandboxed app may write for it.
    public var app: String?
    /// The `providers.d/` file that registers it.
    public var file: String
    /// `MaxWidgets=` in force.
    public var maxWidgets: Int
    /// `MaxBytes=` in force.
    public var maxBytes: Int

    /// A provider's description.
    public init(
        id: String, class: ProtectionClass, user: UInt32?, group: UInt32?, app: String? = nil, file: String, maxWidgets: Int,
        maxBytes: Int
    ) {
        self.id = id
        self.class = `class`
        self.user = user
        self.group = group
        self.app = app
        self.file = file
        self.maxWidgets = maxWidgets
        self.maxBytes = maxBytes
    }
}

/// `Provider.ListProviders`'s `DisabledProviderFile`: a `providers.d/` file that
/// registers nothing, and why.
public struct DisabledProviderFile: Codable, Sendable, Equatable {
    /// The file.
    public var file: String
    /// The line of the problem; `nil` when the file as a whole is at fault.
    public var line: Int?
    /// What is wrong, as `widgetd --check-config` says it.
    public var reason: String

    /// A disabled file's description.
    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }
}

/// The reply of `Provider.ListProviders`.
public struct ProviderListReply: Codable, Sendable, Equatable {
    /// The registered providers the caller may see, in id order.
    public var providers: [ProviderInfo]
    /// The provider files that register nothing (to administrators only); `nil` when none.
    public var disabled: [DisabledProviderFile]?

    /// A provider list.
    public init(providers: [ProviderInfo], disabled: [DisabledProviderFile]?) {
        self.providers = providers
        self.disabled = disabled
    }
}

// MARK: Actions (DESIGN §13)

/// `Provider.WatchActions(provider?)`: the caller's providers' actions, or one provider's.
public struct WatchActionsParameters: Codable, Sendable, Equatable {
    /// Only this provider's widgets (a per-user app names itself).
    public var provider: String?

    /// A watch request.
    public init(provider: String? = nil) { self.provider = provider }
}

/// One performed action, as `WatchActions` streams it to the widget's provider.
public struct ActionDelivery: Codable, Sendable, Equatable {
    /// The delivery's own number, unique while the daemon runs.
    public var id: UInt64
    /// The widget it was performed on.
    public var widget: String
    /// The action's id, as the entry gave it.
    public var action: String
    /// A toggle's new state: the opposite of what was shown. Absent for a button.
    public var isOn: Bool?
    /// The surface the host performed it from.
    public var surface: String
    /// Whether the device was locked when it was delivered.
    public var whileLocked: Bool

    /// A delivery.
    public init(id: UInt64, widget: String, action: String, isOn: Bool?, surface: String, whileLocked: Bool) {
        self.id = id
        self.widget = widget
        self.action = action
        self.isOn = isOn
        self.surface = surface
        self.whileLocked = whileLocked
    }
}

/// `Host.PerformAction(widget, surface, action)`.
public struct PerformActionParameters: Codable, Sendable, Equatable {
    /// The widget id.
    public var widget: String
    /// The surface the host shows it on.
    public var surface: String
    /// The action's id.
    public var action: String

    /// A request to perform an action.
    public init(widget: String, surface: String, action: String) {
        self.widget = widget
        self.surface = surface
        self.action = action
    }
}

/// What became of a performed action (DESIGN §13).
public enum ActionOutcome: String, Codable, Sendable, Equatable {
    /// Its provider has it.
    case delivered
    /// It waits for an unlock within `ActionHoldSec=`.
    case held
    /// No unlock came in time, a lock or the presentation dropped it, or a newer held
    /// action of the same connection replaced it.
    case expired
}

/// The reply of `Host.PerformAction`.
public struct PerformActionReply: Codable, Sendable, Equatable {
    /// What became of it.
    public var outcome: ActionOutcome

    /// A reply.
    public init(outcome: ActionOutcome) { self.outcome = outcome }
}

/// One change of the stored widgets, as `Host.WatchWidgets` streams it.
public struct WidgetEvent: Codable, Sendable, Equatable {
    /// What happened to the widget.
    public enum Kind: String, Codable, Sendable {
        /// It was stored for the first time (or again after a delete).
        case added
        /// It was deleted.
        case removed
        /// Its family or class changed.
        case changed
    }
    /// What happened.
    public var event: Kind
    /// The widget as it is now (as it was, for `removed`).
    public var widget: WidgetInfo

    /// An event.
    public init(event: Kind, widget: WidgetInfo) {
        self.event = event
        self.widget = widget
    }
}
