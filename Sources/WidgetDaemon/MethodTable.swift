import Varlink
import VarlinkTransport
import WidgetdWire

/// Who may call a method at all (DESIGN §6); widget-level checks come later, per call.
enum MethodRole: Sendable, Equatable {
    /// Every peer.
    case anyone
    /// Members of `UnlockGroup=`, and administrators.
    case unlocker
    /// Members of `HostGroup=`, and administrators.
    case host
    /// Peers matching a registered provider's `User=`/`Group=`, and administrators.
    case provider
    /// Administrators only.
    case admin
}

/// Every io.widgetd method, once: its name, the role it requires and its handler, on
/// its owner (the ``DeviceController`` or the ``TimelineService``).
///
/// Dispatch and authorization both read this table, so adding a method is its IDL
/// text (with its `WidgetdMethod` case), one row here and one handler; a test checks
/// that every method of the IDL has exactly one row.
enum MethodTable {
    /// One method.
    struct Row: Sendable {
        /// The method (its name is the wire contract's, `WidgetdMethod`).
        let method: WidgetdMethod
        /// Who may call it.
        let role: MethodRole
        /// Which accepted writes it waits for, after its role check (`WriteWait`).
        let waits: WriteWait
        /// Answers the call; the caller's authority is for widget-level checks.
        let handle: @Sendable (WidgetService, VarlinkCall, CallContext, PeerAuthority) throws(ServiceError) -> Void

        init(
            _ method: WidgetdMethod, _ role: MethodRole, waits: WriteWait = .own,
            _ handle: @escaping @Sendable (WidgetService, VarlinkCall, CallContext, PeerAuthority) throws(ServiceError) -> Void
        ) {
            self.method = method
            self.role = role
            self.waits = waits
            self.handle = handle
        }
    }

    /// Which accepted `PutTimeline` writes a call waits for before it runs, always after
    /// its role check: a call that is refused waits for nothing.
    ///
    /// A connection's calls are answered in order (`VarlinkConnection`), so a caller's
    /// own writes are answered before its next call runs; `own` applies the answered
    /// ones to the store (no wait, no sync) and waits for no other peer's commit: a
    /// write not answered yet may be seen or not, as if it had not happened yet. A call
    /// that reads and rewrites one widget (`AppendEntries`, `DeleteTimeline`) is
    /// also parked until that widget's accepted writes, its provider's, are durable
    /// (`GroupCommitter.whenSettled`): never waited for on the loop.
    enum WriteWait {
        /// None (`PutTimeline`: its writes gather into one group commit).
        case none
        /// The caller's own, answered (see above): every other call. `Wipe` and the
        /// change of an `Unlock` or `SetPasscode` are parked besides until every write
        /// accepted before them is durable (`GroupCommitter.whenCommitted`).
        case own
    }

    /// The rows, in IDL order.
    static let rows: [Row] = [
        Row(.getStatus, .anyone) { (service, call, context, _) throws(ServiceError) in try service.device.getStatus(call, context) },
        Row(.setPasscode, .admin) { (service, call, context, _) throws(ServiceError) in try service.device.setPasscode(call, context) },
        Row(.unlock, .unlocker) { (service, call, context, _) throws(ServiceError) in try service.device.unlock(call, context) },
        Row(.lock, .unlocker) { (service, call, context, _) throws(ServiceError) in try service.device.lock(call, context) },
        Row(.wipe, .admin) { (service, call, context, _) throws(ServiceError) in try service.device.wipe(call, context) },
        Row(.getSettings, .admin) { (service, call, context, _) throws(ServiceError) in try service.device.getSettings(call, context) },
        Row(.setSettings, .admin) { (service, call, context, _) throws(ServiceError) in try service.device.setSettings(call, context) },
        Row(.monitor, .admin) { (service, call, context, _) throws(ServiceError) in try service.device.monitor(call, context) },
        Row(.reportPasscodeOutOfStep, .admin) { (service, call, context, _) throws(ServiceError) in try service.device.reportPasscodeOutOfStep(call, context) },
        Row(.putTimeline, .provider, waits: .none) {
            (service, call, context, authority) throws(ServiceError) in try service.timelines.putTimeline(call, context, authority)
        },
        Row(.appendEntries, .provider) {
            (service, call, context, authority) throws(ServiceError) in try service.timelines.appendEntries(call, context, authority)
        },
        Row(.getTimeline, .provider) {
            (service, call, context, authority) throws(ServiceError) in try service.timelines.getTimeline(call, context, authority)
        },
        Row(.closeTimeline, .provider) {
            (service, call, context, authority) throws(ServiceError) in try service.timelines.closeTimeline(call, context, authority)
        },
        Row(.deleteTimeline, .provider) {
            (service, call, context, authority) throws(ServiceError) in try service.timelines.deleteTimeline(call, context, authority)
        },
        Row(.watchReloads, .provider) {
            (service, call, context, authority) throws(ServiceError) in try service.timelines.watchReloads(call, context, authority)
        },
        Row(.watchActions, .provider) {
            (service, call, context, authority) throws(ServiceError) in try service.timelines.watchActions(call, context, authority)
        },
        Row(.listProviders, .provider) {
            (service, call, context, authority) throws(ServiceError) in try service.timelines.listProviders(call, context, authority)
        },
        Row(.listWidgets, .host) { (service, call, context, _) throws(ServiceError) in try service.timelines.listWidgets(call, context) },
        Row(.getPresentation, .host) { (service, call, context, _) throws(ServiceError) in try service.timelines.getPresentation(call, context) },
        Row(.watch, .host) { (service, call, context, _) throws(ServiceError) in try service.timelines.watch(call, context) },
        Row(.reloadTimelines, .host) { (service, call, context, _) throws(ServiceError) in try service.timelines.reloadTimelines(call, context) },
        Row(.performAction, .host) { (service, call, context, _) throws(ServiceError) in try service.timelines.performAction(call, context) },
        Row(.watchWidgets, .host) {
            (service, call, context, _) throws(ServiceError) in try service.timelines.watchWidgets(call, context)
        },
    ]

    /// The rows by method.
    static let byMethod: [WidgetdMethod: Row] = Dictionary(uniqueKeysWithValues: rows.map { ($0.method, $0) })

    /// The row of the method a call names, if it is an io.widgetd method.
    static func row(_ fullName: String) -> Row? { WidgetdMethod(fullName: fullName).flatMap { byMethod[$0] } }
}
