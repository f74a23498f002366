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
    /// The last answer of `nextDue(after:)` and the instant it was asked for: it stays
    /// the answer for any later instant before it, until an item changes. Without it,
    /// every reschedule (each write, lock, unlock) would pass over every stored timeline.
    private var earliest: (asked: Date, answer: Date?)?

    /// Starts from the stored timelines.
    mutating func load(_ timelines: [TimelineMetadata]) {
        earliest = nil
        items = Dictionary(
            timelines.map { ($0.widget, Item(due: $0.reloadDue, generation: $0.generation)) },
            uniquingKeysWith: { first, _ in first })
    }

    /// A timeline found while indexing the store; one stored since is newer and kept.
    mutating func found(_ metadata: TimelineMetadata) {
        guard items[metadata.widget] == nil else { return }
        items[metadata.widget] = Item(due: metadata.reloadDue, generation: metadata.generation)
        added(due: metadata.reloadDue)
    }

    /// A new generation was stored: its reload is not announced yet.
    mutating func stored(_ widget: WidgetID, generation: UInt64, due: Date?) {
        let old = items.updateValue(Item(due: due, generation: generation), forKey: widget)
        dropped(old)
        added(due: due)
    }

    /// The timeline was deleted.
    mutating func removed(_ widget: WidgetID) { dropped(items.removeValue(forKey: widget)) }

    /// An unannounced item with this due date joined: it may be the new earliest.
    private mutating func added(due: Date?) {
        guard let due, let known = earliest, due > known.asked else { return }
        if known.answer.map({ due < $0 }) ?? true { earliest = (known.asked, due) }
    }

    /// An item left the unannounced ones: if it was the earliest, ask again.
    private mutating func dropped(_ item: Item?) {
        guard let item, item.announced != item.generation, let due = item.due, due == earliest?.answer else { return }
        earliest = nil
    }

    /// The widgets whose reload is due at `now` and not yet announced.
    func due(at now: Date) -> [WidgetID] {
        items.filter { _, item in
            item.announced != item.generation && item.due.map { $0 <= now } == true
        }.map(\.key).sorted()
    }

    /// Records that the due reload of `widget`'s current generation was announced.
    mutating func announced(_ widget: WidgetID) {
        guard var item = items[widget] else { return }
        dropped(item)
        item.announced = item.generation
        items[widget] = item
    }

    /// The earliest unannounced due date still in the future, for the wake timer.
    mutating func nextDue(after now: Date) -> Date? {
        // Nothing lies between the instant last asked and its answer, so the answer
        // holds until `now` reaches it.
        if let known = earliest, now >= known.asked, known.answer.map({ now < $0 }) ?? true { return known.answer }
        let answer = items.values.filter { $0.announced != $0.generation }.compactMap(\.due).filter { $0 > now }.min()
        earliest = (now, answer)
        return answer
    }

    /// Every stored widget.
    var widgets: [WidgetID] { items.keys.sorted() }
}
