import Foundation
import WidgetModel
import WidgetStore

/// When each stored timeline's reload falls due, and which due reloads were already
/// announced, so that a provider hears of each due reload once (DESIGN §2).
///
/// Kept in memory from the class-`none` metadata, so it works in every lock state.
struct ReloadSchedule {
    private struct Item {
        var due: Date?
        var generation: UInt64
        /// The generation whose due reload was announced.
        var announced: UInt64?
    }

    private var items: [WidgetID: Item] = [:]

    /// Starts from the stored timelines.
    mutating func load(_ timelines: [TimelineMetadata]) {
        items = Dictionary(
            timelines.map { ($0.widget, Item(due: $0.reloadDue, generation: $0.generation)) },
            uniquingKeysWith: { first, _ in first })
    }

    /// A timeline found while indexing the store; one stored since is newer and kept.
    mutating func found(_ metadata: TimelineMetadata) {
        guard items[metadata.widget] == nil else { return }
        items[metadata.widget] = Item(due: metadata.reloadDue, generation: metadata.generation)
    }

    /// A new generation was stored: its reload is not announced yet.
    mutating func stored(_ widget: WidgetID, generation: UInt64, due: Date?) {
        items[widget] = Item(due: due, generation: generation)
    }

    /// The timeline was deleted.
    mutating func removed(_ widget: WidgetID) { items[widget] = nil }

    /// The widgets whose reload is due at `now` and not yet announced.
    func due(at now: Date) -> [WidgetID] {
        items.filter { _, item in
            item.announced != item.generation && item.due.map { $0 <= now } == true
        }.map(\.key).sorted()
    }

    /// Records that the due reload of `widget`'s current generation was announced.
    mutating func announced(_ widget: WidgetID) {
        guard var item = items[widget] else { return }
        item.announced = item.generation
        items[widget] = item
    }

    /// The earliest unannounced due date still in the future, for the wake timer.
    func nextDue(after now: Date) -> Date? {
        items.values.filter { $0.announced != $0.generation }.compactMap(\.due).filter { $0 > now }.min()
    }

    /// Every stored widget.
    var widgets: [WidgetID] { items.keys.sorted() }
}
