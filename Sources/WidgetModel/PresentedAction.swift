/// An action as a host sees it (DESIGN §13): as stored, with whether it may run now.
///
/// A redacted action carries only the stand-in title (the placeholder's action of the
/// same id, or null) and `redacted: true`: nothing of the real title.
public struct PresentedAction: Sendable, Hashable {
    /// The provider's id, which `PerformAction` names.
    public var id: String
    /// The title to draw; nil when redacted with no stand-in.
    public var title: String?
    /// A freedesktop icon name.
    public var icon: String?
    /// A button or a toggle.
    public var kind: ActionKind
    /// A toggle's state as shown.
    public var isOn: Bool?
    /// What a locked device asks before it runs.
    public var authentication: AuthenticationPolicy
    /// Whether it may run now without an unlock.
    public var available: Bool
    /// What it waits for when it may not run now: `"unlock"`.
    public var requires: String?
    /// True when the title shown is not the real one.
    public var redacted: Bool

    /// Makes a presented action.
    public init(
        id: String, title: String?, icon: String? = nil, kind: ActionKind, isOn: Bool? = nil,
        authentication: AuthenticationPolicy, available: Bool, requires: String? = nil, redacted: Bool = false
    ) {
        self.id = id
        self.title = title
        self.icon = icon
        self.kind = kind
        self.isOn = isOn
        self.authentication = authentication
        self.available = available
        self.requires = requires
        self.redacted = redacted
    }

    /// What an action waits for while it may not run: the one value of `requires`.
    public static let unlock = "unlock"
}

extension PresentedAction: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, title, icon, kind, isOn, authentication, available, requires, redacted
    }

    /// Decodes the wire shape (for clients); absent `redacted` means false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        icon = try container.decodeIfPresent(String.self, forKey: .icon)
        kind = try container.decode(ActionKind.self, forKey: .kind)
        isOn = try container.decodeIfPresent(Bool.self, forKey: .isOn)
        authentication = try container.decode(AuthenticationPolicy.self, forKey: .authentication)
        available = try container.decode(Bool.self, forKey: .available)
        requires = try container.decodeIfPresent(String.self, forKey: .requires)
        redacted = try container.decodeIfPresent(Bool.self, forKey: .redacted) ?? false
    }

    /// Encodes the wire shape: `title` always (null when redacted without a stand-in),
    /// the other optional members when set, `redacted` only when true.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(icon, forKey: .icon)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(isOn, forKey: .isOn)
        try container.encode(authentication, forKey: .authentication)
        try container.encode(available, forKey: .available)
        try container.encodeIfPresent(requires, forKey: .requires)
        if redacted { try container.encode(true, forKey: .redacted) }
    }
}
