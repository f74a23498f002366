/// Something a host may perform on an entry (DESIGN §13): a button or a toggle, as a
/// widget's `Button(intent:)` and `Toggle(isOn:intent:)`.
///
/// What it does is the provider's, fixed in the entry: a host sends only its `id`.
public struct WidgetAction: Sendable, Hashable {
    /// The provider's own name for the action, unique in its entry.
    public var id: String
    /// What a host labels it with.
    public var title: String
    /// A freedesktop icon name, drawn beside or instead of the title.
    public var icon: String?
    /// A button or a toggle.
    public var kind: ActionKind
    /// A toggle's state as shown; absent on a button.
    public var isOn: Bool?
    /// What a locked device asks before it runs.
    public var authentication: AuthenticationPolicy
    /// `sensitive`: its title is redacted as a sensitive field's value is.
    public var privacy: Privacy?

    /// Makes an action; `TimelineValidator` checks it.
    public init(
        id: String, title: String, icon: String? = nil, kind: ActionKind = .button, isOn: Bool? = nil,
        authentication: AuthenticationPolicy = .default, privacy: Privacy? = nil
    ) {
        self.id = id
        self.title = title
        self.icon = icon
        self.kind = kind
        self.isOn = isOn
        self.authentication = authentication
        self.privacy = privacy
    }
}

extension WidgetAction: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, title, icon, kind, isOn, authentication, privacy
    }

    /// Decodes an action, rejecting unknown keys; absent `authentication` is
    /// `requiresAuthentication`, nulls count as absent.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        icon = try container.decodeIfPresent(String.self, forKey: .icon)
        kind = try container.decode(ActionKind.self, forKey: .kind)
        isOn = try container.decodeIfPresent(Bool.self, forKey: .isOn)
        authentication = try container.decodeIfPresent(AuthenticationPolicy.self, forKey: .authentication) ?? .default
        privacy = try container.decodeIfPresent(Privacy.self, forKey: .privacy)
    }

    /// Encodes every member, the absent ones omitted; `authentication` always.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(icon, forKey: .icon)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(isOn, forKey: .isOn)
        try container.encode(authentication, forKey: .authentication)
        try container.encodeIfPresent(privacy, forKey: .privacy)
    }
}
