import FoundationEssentials
import Varlink
import VarlinkTransport
import WidgetModel

/// The open streams of the timeline side: `Watch` and `WatchReloads` calls that
/// asked for `more` and are answered again whenever what they watch changes.
struct Subscriptions {
    /// A host's `Watch(widget, surface)`.
    final class PresentationWatch {
        let context: CallContext
        let widget: WidgetID
        let surface: Surface
        /// The digest of the last reply sent, so an unchanged presentation is not sent
        /// again. Not the presentation: it may hold decrypted content, which must not
        /// wait in plain strings for as long as the watch lives (nor past a purge).
        var lastSent: PresentationDigest?
        /// When the presentation next changes by itself (entry date, reload due).
        var nextChange: Date?

        init(context: CallContext, widget: WidgetID, surface: Surface) {
            self.context = context
            self.widget = widget
            self.surface = surface
        }
    }

    /// A provider's `WatchReloads()`: the providers it may hear about, or all for an admin.
    struct ReloadWatch {
        let context: CallContext
        let providers: Set<String>?

        func wants(_ widget: WidgetID) -> Bool { providers?.contains(widget.provider) ?? true }
    }

    private(set) var watches: [PresentationWatch] = []
    private(set) var reloadWatches: [ReloadWatch] = []

    mutating func add(_ watch: PresentationWatch) { watches.append(watch) }
    mutating func add(_ watch: ReloadWatch) { reloadWatches.append(watch) }

    /// Drops every stream of a closed connection, and any whose connection is gone.
    mutating func remove(connection: ConnectionID) {
        watches.removeAll { $0.context.connection == connection || !$0.context.isOpen }
        reloadWatches.removeAll { $0.context.connection == connection || !$0.context.isOpen }
    }

    /// Drops one presentation watch whose call has ended.
    mutating func remove(_ watch: PresentationWatch) { watches.removeAll { $0 === watch } }

    /// The watches of one widget.
    func watches(of widget: WidgetID) -> [PresentationWatch] { watches.filter { $0.widget == widget } }

    /// The earliest time a watched presentation changes by itself.
    var nextChange: Date? { watches.compactMap(\.nextChange).min() }
}
