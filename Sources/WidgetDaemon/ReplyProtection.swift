import VarlinkTransport
import WidgetModel

/// What protected content a reply holds: content stored under a class, and whether its
/// reader may still read it once that class's key is purged.
///
/// A reply the socket has not taken yet is a copy of that content; when the class is
/// purged (A after its grace period, B at lock, everything at a wipe) the copy must go
/// too, so each queued reply carries this mark (its ``OutputTag``, in ``UnsentOutput``). The one exception is
/// DESIGN §3's: a class-B timeline that is open stays readable to its own provider until
/// it is closed, so its `GetTimeline` reply names the timeline (``openTimeline``).
struct ReplyProtection: OutputTag, Hashable {
    /// The class the content is stored under.
    var protectionClass: ProtectionClass
    /// For a provider reading its own timeline: the widget, whose open class-B timeline
    /// it may still read after the class-B key is purged. `nil` for a host, who may not.
    var openTimeline: WidgetID?

    /// Marks a reply holding content of `protectionClass`; `openTimeline` as above.
    init(protectionClass: ProtectionClass, openTimeline: WidgetID? = nil) {
        self.protectionClass = protectionClass
        self.openTimeline = openTimeline
    }

    /// The class, which the log names when a connection drops output holding it.
    var logMetadata: [String: String] { ["class": protectionClass.rawValue] }
}
