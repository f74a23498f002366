import FoundationEssentials
import SecureMemory
import StoreLedger
import WidgetCrypto
import WidgetModel
import WidgetdPOSIX

/// The store as the daemon's timeline side sees it (`TimelineService` and what it owns:
/// `GroupCommitter`, `BackgroundIndex`, `ReloadSchedule`): reading timelines and their
/// metadata, listing them, preparing and finishing writes and deletes, the background
/// index, the reload announcements and the prefetch of bodies to present. Nothing of
/// keys: the timeline side reads and writes what the held keys open, the device side
/// (`StoreDeviceFace`) changes which are held, and the compiler keeps each to its own
/// calls. What both read is `StoreSharedFace`, which this refines.
///
/// `TimelineStore` is the one conformer; the members are its own, documented there.
/// The commits themselves (`TimelineStore.commit`, `commitDelete`) are static, run off
/// the store's thread on prepared work, and so are not members of a face.
///
/// Threading: the store's thread, as every `TimelineStore` member.
package protocol StoreTimelinesFace: StoreSharedFace {
    // Reads.
    func readBody(_ widget: WidgetID, allowOpenClassB: Bool) throws(StoreError) -> SecureBytes
    func metadata(_ widget: WidgetID) throws(StoreError) -> TimelineMetadata?
    func metadataWithoutPlaceholder(_ widget: WidgetID) throws(StoreError) -> TimelineMetadata?
    func listTimelines(after: WidgetID?, provider: String?, limit: Int) throws(StoreError) -> (timelines: [TimelineMetadata], more: Bool)
    func storedWidgets(provider: String?, kind: String?) throws(StoreError) -> [WidgetID]
    func isOpen(_ widget: WidgetID) -> Bool
    func closeTimeline(_ widget: WidgetID)
    /// `TimelineStore.prefetchBodies(_:perform:decode:)` for the refresh pass's
    /// excerpts: the one it is specialised for.
    func prefetchBodies(
        _ widgets: [WidgetID], perform: TimelineStore.ConcurrentWork,
        decode: @escaping @Sendable (UnsafeRawBufferPointer) -> TimelineExcerpt?
    ) -> [WidgetID: TimelineExcerpt]

    // Writes and deletes: prepared and finished here, committed off the thread.
    func prepareWrites(_ writes: [TimelineStore.TimelineWrite]) -> TimelineStore.PreparedWrites
    func finishWrites(_ committed: TimelineStore.CommittedWrites) -> [Result<UInt64, StoreError>]
    func prepareDelete(_ widget: WidgetID) throws(StoreError) -> TimelineStore.PreparedDelete
    func finishDelete(_ prepared: TimelineStore.PreparedDelete, _ result: Result<Void, StoreError>) throws(StoreError)

    // The index and the reload announcements.
    var isUsageKnown: Bool { get }
    func indexNextTimelines(limit: Int) throws(StoreError) -> [TimelineMetadata]?
    func indexedGeneration(_ widget: WidgetID) throws(StoreError) -> UInt64?
    func unannouncedReloads(dueAt now: Date) -> [WidgetID]
    func nextUnannouncedReload(after now: Date) -> Date?
    func recordReloadAnnounced(_ widget: WidgetID) throws(StoreError)
}

extension TimelineStore: StoreTimelinesFace {}
