import WidgetModel

/// The reply shapes of `io.widgetd.*` that the CLI reads (the decided wire contract).
///
/// They mirror the IDL rather than WidgetModel's types so the CLI reads exactly what
/// crosses the socket, and tolerates fields it does not know.
enum Wire {
    /// `Settings`.
    struct Settings: Decodable, Equatable {
        let lockScreenWidgetsAccess: Bool
        let hideSensitiveComplications: String
        let hiddenComplications: [String]
    }

    /// `ClassStatus`.
    struct ClassStatus: Decodable, Equatable {
        let `class`: String
        let keyAvailable: Bool
    }

    /// `Device.GetStatus` reply.
    struct Status: Decodable, Equatable {
        let state: String
        let passcodeSet: Bool
        let classes: [ClassStatus]
        let failedAttempts: Int
        let retryAfter: Double?
        let settings: Settings
        /// Absent when the daemon has nothing to warn of.
        let warnings: [String]?
        /// The watched logind sessions; absent when sessions are not followed.
        let sessions: [String]?
    }

    /// `Device.GetSettings` and `SetSettings` replies.
    struct SettingsReply: Decodable, Equatable {
        let settings: Settings
    }

    /// `DeviceEvent`.
    struct DeviceEvent: Decodable, Equatable {
        let kind: String
        let state: String
        let passcodeSet: Bool
        let settings: Settings
    }

    /// `Device.Monitor` reply.
    struct MonitorReply: Decodable, Equatable {
        let event: DeviceEvent
    }

    /// `Relevance`.
    struct Relevance: Decodable, Equatable {
        let score: Double
        let duration: Double
    }

    /// `Field` and `PresentedField`: `redacted` only appears in presentations.
    struct Field: Decodable, Equatable {
        let value: JSONValue
        let privacy: String?
        let redacted: Bool?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // A missing or null value is JSON null: a redacted field without placeholder value.
            value = try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
            privacy = try container.decodeIfPresent(String.self, forKey: .privacy)
            redacted = try container.decodeIfPresent(Bool.self, forKey: .redacted)
        }

        private enum CodingKeys: String, CodingKey { case value, privacy, redacted }
    }

    /// `Entry` and `PresentedEntry`.
    struct Entry: Decodable, Equatable {
        let date: String?
        let relevance: Relevance?
        let fields: [String: Field]
    }

    /// `ReloadPolicy`.
    struct ReloadPolicy: Decodable, Equatable {
        let kind: String
        let date: String?
    }

    /// `Provider.GetTimeline` reply.
    struct Timeline: Decodable, Equatable {
        let family: String?
        let entries: [Entry]
        let policy: ReloadPolicy
        let generation: Int
    }

    /// `Provider.PutTimeline` and `AppendEntries` replies.
    struct Generation: Decodable, Equatable {
        let generation: Int
    }

    /// `WidgetInfo`.
    struct WidgetInfo: Decodable, Equatable {
        let widget: String
        let provider: String
        let kind: String
        let family: String?
        let `class`: String
        let generation: Int
    }

    /// `Host.ListWidgets` reply.
    struct WidgetList: Decodable, Equatable {
        let widgets: [WidgetInfo]
        /// Where the next page starts, while more remain.
        let next: String?
    }

    /// `Presentation`.
    struct Presentation: Decodable, Equatable {
        let widget: String
        let surface: String
        let mode: String
        let reasons: [String]
        let luminanceReduced: Bool
        let stale: Bool
        let entry: Entry
        let validUntil: String?
    }

    /// `Host.GetPresentation` and `Watch` replies.
    struct PresentationReply: Decodable, Equatable {
        let presentation: Presentation
    }
}
