import FoundationEssentials
import Varlink
import VarlinkTransport
import WidgetModel

/// The open streams of the timeline side: `Watch`, `WatchReloads` and `WatchWidgets` calls that
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

    /// Every presentation watch, in the order they came: a pass over all of them (an
    /// unlock, a lock) presents them in it.
    private(set) var watches: [PresentationWatch] = []
    /// The same watches by widget, each list in the order they came: what a write of one
    /// widget re-presents, found without a pass over every watch. Kept exact by every
    /// change below (the only ones there are).
    private var byWidget: [WidgetID: [PresentationWatch]] = [:]
    private(set) var reloadWatches: [ReloadWatch] = []
    /// Hosts' `WatchWidgets()` streams.
    private(set) var widgetWatches: [CallContext] = []

    mutating func add(_ watch: PresentationWatch) {
        watches.append(watch)
        byWidget[watch.widget, default: []].append(watch)
    }

    mutating func add(_ watch: ReloadWatch) { reloadWatches.append(watch) }

    mutating func addWidgetWatch(_ context: CallContext) { widgetWatches.append(context) }

    /// Whether any host follows the stored widgets (a write then looks up whether its
    /// widget is new, which costs a lookup no one needs otherwise).
    var followsWidgets: Bool { widgetWatches.contains { $0.isOpen } }

    /// Drops every stream of a closed connection, and any whose connection is gone.
    mutating func remove(connection: ConnectionID) {
        var gone: [PresentationWatch] = []
        watches.removeAll { watch in
            guard watch.context.connection == connection || !watch.context.isOpen else { return false }
            gone.append(watch)
            return true
        }
        unindex(gone)
        reloadWatches.removeAll { $0.context.connection == connection || !$0.context.isOpen }
        widgetWatches.removeAll { $0.connection == connection || !$0.isOpen }
    }

    /// Drops one presentation watch whose call has ended.
    mutating func remove(_ watch: PresentationWatch) {
        watches.removeAll { $0 === watch }
        unindex([watch])
    }

    /// Takes `gone` (watches just dropped from `watches`) out of `byWidget`.
    private mutating func unindex(_ gone: [PresentationWatch]) {
        guard !gone.isEmpty else { return }
        let dropped = Set(gone.map(ObjectIdentifier.init))
        for widget in Set(gone.map(\.widget)) {
            guard var list = byWidget.removeValue(forKey: widget) else { continue }
            list.removeAll { dropped.contains(ObjectIdentifier($0)) }
            if !list.isEmpty { byWidget[widget] = list }
        }
    }

    /// The watches of one widget, in the order they came.
    func watches(of widget: WidgetID) -> [PresentationWatch] { byWidget[widget] ?? [] }

    /// The widgets watched (for tests of the index).
    var watchedWidgets: Set<WidgetID> { Set(byWidget.keys) }

    /// The earliest time a watched presentation changes by itself.
    var nextChange: Date? { watches.compactMap(\.nextChange).min() }
}
