import FoundationEssentials
import WidgetModel
import WidgetStore

/// When each stored timeline's reload falls due, and which due reloads were already
/// announced, so that a provider hears of each due reload once (DESIGN §2).
///
/// A view of the store's index, which keeps every stored timeline's due date and
/// announcement beside its other metadata (from the class-`none` section, so it works
/// in every lock state): the daemon keeps no map of its own per stored timeline.
struct ReloadSchedule {
    let store: any StoreTimelinesFace

    /// The widgets whose reload is due at `now` and not yet announced.
    func due(at now: Date) -> [WidgetID] { store.unannouncedReloads(dueAt: now) }

    /// Records that the due reload of `widget`'s current generation was announced.
    func announced(_ widget: WidgetID) {
        // Fails only if the file-name hash fails; the reload is then announced again
        // at the next due pass, which a provider tolerates.
        try? store.recordReloadAnnounced(widget)
    }

    /// The earliest unannounced due date still in the future, for the date timer.
    func nextDue(after now: Date) -> Date? { store.nextUnannouncedReload(after: now) }

    /// A new generation was stored: the store's index already holds its due date, not
    /// yet announced. A debug build checks that the index has it (or a later one, when
    /// a group commit wrote the widget twice).
    func stored(_ widget: WidgetID, generation: UInt64) {
        assert(((try? store.indexedGeneration(widget)) ?? nil).map { $0 >= generation } == true, "the store's index missed a write")
    }

    /// The timeline was deleted: the store's index already forgot it. A debug build
    /// checks that.
    func removed(_ widget: WidgetID) {
        assert(((try? store.indexedGeneration(widget)) ?? nil) == nil, "the store's index missed a deletion")
    }
}
