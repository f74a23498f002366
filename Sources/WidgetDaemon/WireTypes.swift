import FoundationEssentials
import StrictJSON
import Varlink
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
    /// `nil` (the key omitted) when there is none.
    var warnings: [StatusWarning]?
    /// The watched logind sessions; `nil` (omitted) when sessions are not followed.
    var sessions: [String]?
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

struct PutTimelineParameters: Sendable {
    var widget: String
    var family: String?
    var entries: [Entry]
    var policy: ReloadPolicy?
    var placeholder: Placeholder?

    /// Reads a call's parameters in place with `JSONReader` (see `ProviderParameters`).
    static func read(from bytes: UnsafeRawBufferPointer?) throws -> PutTimelineParameters {
        let members = try ProviderParameters(bytes)
        return PutTimelineParameters(
            widget: try members.widget(),
            family: try members.family(),
            entries: try members.timelinePart("entries", Entry.readArray) ?? { throw ServiceError.invalidTimeline("missing \"entries\"") }(),
            policy: try members.timelinePart("policy", ReloadPolicy.read),
            placeholder: try members.timelinePart("placeholder", Placeholder.read))
    }
}

struct AppendEntriesParameters: Sendable {
    var widget: String
    var entries: [Entry]

    /// Reads a call's parameters in place with `JSONReader` (see `ProviderParameters`).
    static func read(from bytes: UnsafeRawBufferPointer?) throws -> AppendEntriesParameters {
        let members = try ProviderParameters(bytes)
        return AppendEntriesParameters(
            widget: try members.widget(),
            entries: try members.timelinePart("entries", Entry.readArray) ?? { throw ServiceError.invalidTimeline("missing \"entries\"") }())
    }
}

/// The members of a `PutTimeline` or `AppendEntries` parameters object, located in one
/// pass and then decoded in a fixed order (`widget`, `family`, `entries`, `policy`,
/// `placeholder`), so that the first problem named does not depend on member order.
///
/// `widget` and `family` problems are `InvalidParameter` naming the member; problems in
/// `entries`, `policy` and `placeholder` are `InvalidTimeline` with the path inside
/// them. Unknown members are ignored, as Varlink allows; a known member given twice is
/// refused. The envelope scan has already checked the bytes are JSON text.
struct ProviderParameters {
    static let known = ["widget", "family", "entries", "policy", "placeholder"]

    private let bytes: UnsafeRawBufferPointer
    private var offsets: [String: Int] = [:]

    init(_ bytes: UnsafeRawBufferPointer?) throws {
        guard let bytes else {
            self.bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        self.bytes = bytes
        var reader = JSONReader(bytes)
        var offsets: [String: Int] = [:]
        var duplicate: String?
        do {
            try reader.readObject { (reader, key) throws(JSONReadError) in
                _ = try reader.peek()
                if Self.known.contains(key), offsets.updateValue(reader.offset, forKey: key) != nil, duplicate == nil {
                    duplicate = key
                }
                // The envelope scan checked these bytes: locating the next member is enough.
                try reader.skipCheckedValue()
            }
        } catch {
            throw ServiceError.invalidParameter("")
        }
        if let duplicate {
            if duplicate == "widget" || duplicate == "family" { throw ServiceError.invalidParameter(duplicate) }
            throw ServiceError.invalidTimeline("duplicate key \"\(duplicate)\"")
        }
        self.offsets = offsets
    }

    /// The required `widget` string.
    func widget() throws -> String {
        guard let offset = offsets["widget"] else { throw ServiceError.invalidParameter("widget") }
        var reader = JSONReader(bytes).reader(at: offset)
        guard let text = try? reader.readString() else { throw ServiceError.invalidParameter("widget") }
        return text
    }

    /// The optional `family` string; null counts as absent.
    func family() throws -> String? {
        guard let offset = offsets["family"] else { return nil }
        var reader = JSONReader(bytes).reader(at: offset)
        guard let isNull = try? reader.readNull(), !isNull else { return nil }
        guard let text = try? reader.readString() else { throw ServiceError.invalidParameter("family") }
        return text
    }

    /// A member read with `read`, or nil when absent or null; errors are `InvalidTimeline`.
    func timelinePart<T>(_ key: String, _ read: (inout JSONReader) throws(JSONReadError) -> T) throws -> T? {
        guard let offset = offsets[key] else { return nil }
        var reader = JSONReader(bytes).reader(at: offset)
        do {
            if try reader.readNull() { return nil }
            return try read(&reader)
        } catch {
            throw ServiceError.invalidTimeline(InvalidTimeline(reading: error, in: bytes).reason)
        }
    }
}

struct GenerationReply: Encodable, Sendable {
    var generation: UInt64

    /// The whole reply, NUL-terminated, written directly: it answers every write, and
    /// `JSONEncoder` cost ≈ 3.5% of the daemon's CPU under writes. Same bytes as
    /// `VarlinkReply.encode(parameters: self)` (a test compares them).
    var encodedReply: [UInt8] {
        VarlinkReply.encode(encodedParameters: Array(#"{"generation":\#(generation)}"#.utf8))
    }
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

/// `ListWidgets(provider?, after?, limit?)`: without `limit` every widget, as before
/// paging existed; with it one page in widget id order.
struct ListWidgetsParameters: Decodable, Sendable {
    var provider: String?
    var after: String?
    var limit: Int?

    private enum CodingKeys: String, CodingKey { case provider, after, limit }

    init(from decoder: any Decoder) throws {
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

struct ListWidgetsReply: Encodable, Sendable {
    var widgets: [WidgetInfo]
    /// The last widget of a page when more follow: pass it as `after`. Absent otherwise.
    var next: String?
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
