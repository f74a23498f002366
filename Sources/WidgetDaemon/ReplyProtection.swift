import WidgetModel

/// What protected content a reply holds: a timeline's content, stored under its class.
///
/// A reply the socket has not taken yet is a copy of that content; when the class is
/// purged (A after its grace period, B at lock unless the timeline is still open to its
/// provider, everything at a wipe) the copy must go too, so each queued reply carries
/// this mark (``UnsentOutput``).
public struct ReplyProtection: Sendable, Hashable {
    /// The widget whose content the reply holds.
    public var widget: WidgetID
    /// The class it is stored under.
    public var protectionClass: ProtectionClass

    /// Marks a reply holding `widget`'s content.
    public init(widget: WidgetID, protectionClass: ProtectionClass) {
        self.widget = widget
        self.protectionClass = protectionClass
    }
}
