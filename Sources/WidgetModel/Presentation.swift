import FoundationEssentials

/// What a host is shown for one widget on one surface (DESIGN §4; `io.widgetd.Host.Presentation`).
///
/// Encode it with `.sortedKeys` for deterministic bytes: the daemon encodes each
/// presentation once and serves the same bytes until it changes.
public struct Presentation: Sendable, Hashable {
    /// The widget shown.
    public var widget: WidgetID
    /// The surface it is shown on.
    public var surface: Surface
    /// Content, redacted or placeholder.
    public var mode: PresentationMode
    /// Why it is not plain current content; empty when it is.
    public var reasons: [PresentationReason]
    /// True on the always-on display.
    public var luminanceReduced: Bool
    /// True when the timeline's reload is due and no new timeline has arrived; never on a
    /// placeholder, which tells nothing of the timeline it stands in for.
    public var stale: Bool
    /// The entry to draw.
    public var entry: PresentedEntry
    /// When the shown entry is replaced by the next one, if any (nil for a placeholder).
    public var validUntil: Date?
    /// What a host may perform on the shown entry (the placeholder's, in placeholder
    /// mode), in the provider's order (DESIGN §13).
    public var actions: [PresentedAction]

    /// Makes a presentation.
    public init(
        widget: WidgetID, surface: Surface, mode: PresentationMode, reasons: [PresentationReason],
        luminanceReduced: Bool, stale: Bool, entry: PresentedEntry, validUntil: Date?, actions: [PresentedAction] = []
    ) {
        self.widget = widget
        self.surface = surface
        self.mode = mode
        self.reasons = reasons
        self.luminanceReduced = luminanceReduced
        self.stale = stale
        self.entry = entry
        self.validUntil = validUntil
        self.actions = actions
    }
}

extension Presentation: Codable {
    private enum CodingKeys: String, CodingKey {
        case widget, surface, mode, reasons, luminanceReduced, stale, entry, validUntil, actions
    }

    /// Decodes the wire shape (for clients such as `widgetctl`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        widget = try container.decode(WidgetID.self, forKey: .widget)
        surface = try container.decode(Surface.self, forKey: .surface)
        mode = try container.decode(PresentationMode.self, forKey: .mode)
        reasons = try container.decode([PresentationReason].self, forKey: .reasons)
        luminanceReduced = try container.decode(Bool.self, forKey: .luminanceReduced)
        stale = try container.decode(Bool.self, forKey: .stale)
        entry = try container.decode(PresentedEntry.self, forKey: .entry)
        validUntil = try container.decodeRFC3339IfPresent(forKey: .validUntil)
        actions = try container.decodeIfPresent([PresentedAction].self, forKey: .actions) ?? []
    }

    /// Encodes the wire shape; `validUntil` is RFC 3339 and omitted when nil, `actions`
    /// omitted when there are none (so a widget without actions is served as before).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(widget, forKey: .widget)
        try container.encode(surface, forKey: .surface)
        try container.encode(mode, forKey: .mode)
        try container.encode(reasons, forKey: .reasons)
        try container.encode(luminanceReduced, forKey: .luminanceReduced)
        try container.encode(stale, forKey: .stale)
        try container.encode(entry, forKey: .entry)
        try container.encodeIfPresent(validUntil.map(RFC3339.format), forKey: .validUntil)
        if !actions.isEmpty { try container.encode(actions, forKey: .actions) }
    }
}
