import Foundation
import WidgetModel

// The parameters and replies of the io.widgetd.* methods, as DESIGN §5 and the
// interface files in interfaces/ spell them. Only shapes live here; the methods'
// behaviour lives in the WidgetService extensions.

/// A method with no parameters, or a reply with none.
struct Empty: Codable, Sendable {}

// MARK: io.widgetd.Device

struct ClassStatus: Encodable, Sendable {
    var `class`: ProtectionClass
    var keyAvailable: Bool
}

struct StatusReply: Encodable, Sendable {
    var state: DeviceState
    var passcodeSet: Bool
    var classes: [ClassStatus]
    var failedAttempts: Int
    var retryAfter: Double?
    var settings: Settings
}

struct SetPasscodeParameters: Decodable, Sendable {
    var current: String?
    var new: String?
}

struct UnlockParameters: Decodable, Sendable {
    var passcode: String
}

struct WipeParameters: Decodable, Sendable {
    var confirm: String
}

struct SettingsReply: Encodable, Sendable {
    var settings: Settings
}

struct SetSettingsParameters: Decodable, Sendable {
    var lockScreenWidgetsAccess: Bool?
    var hideSensitiveComplications: String?
    var hiddenComplications: [String]?
}

/// A device event streamed by `Monitor`.
struct DeviceEvent: Encodable, Sendable, Equatable {
    enum Kind: String, Encodable, Sendable { case state, settings }
    var kind: Kind
    var state: DeviceState
    var passcodeSet: Bool
    var settings: Settings
}

struct DeviceEventReply: Encodable, Sendable {
    var event: DeviceEvent
}

// MARK: io.widgetd.Provider

struct WidgetParameters: Decodable, Sendable {
    var widget: String
}

struct PutTimelineParameters: Decodable, Sendable {
    var widget: String
    var family: String?
    var entries: [Entry]
    var policy: ReloadPolicy?
    var placeholder: Placeholder?
}

struct AppendEntriesParameters: Decodable, Sendable {
    var widget: String
    var entries: [Entry]
}

struct GenerationReply: Encodable, Sendable {
    var generation: UInt64
}

struct TimelineReply: Encodable, Sendable {
    var family: String?
    var entries: [Entry]
    var policy: ReloadPolicy
    var generation: UInt64
}

/// A reload request streamed by `WatchReloads`.
struct ReloadRequest: Encodable, Sendable, Equatable {
    enum Reason: String, Encodable, Sendable { case due, requested }
    var widget: String
    var reason: Reason
}

// MARK: io.widgetd.Host

struct WidgetInfo: Encodable, Sendable {
    var widget: String
    var provider: String
    var kind: String
    var family: String?
    var `class`: ProtectionClass
    var generation: UInt64
}

struct ListWidgetsReply: Encodable, Sendable {
    var widgets: [WidgetInfo]
}

struct PresentationParameters: Decodable, Sendable {
    var widget: String
    var surface: String
}

struct PresentationReply: Encodable, Sendable {
    var presentation: Presentation
}

struct ReloadTimelinesParameters: Decodable, Sendable {
    var provider: String?
    var kind: String?
}
