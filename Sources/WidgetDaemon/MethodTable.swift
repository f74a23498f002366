import Varlink

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

/// Every io.widgetd method, once: its name, the role it requires and its handler.
///
/// Dispatch and authorization both read this table, so adding a method is its IDL
/// text, one row here and one handler; a test checks that every method of the IDL has
/// exactly one row.
enum MethodTable {
    /// One method.
    struct Row: Sendable {
        /// The qualified name, e.g. `io.widgetd.Host.GetPresentation`.
        let method: String
        /// Who may call it.
        let role: MethodRole
        /// Whether the accepted `PutTimeline` writes are committed (and answered) before
        /// it runs, so that it sees them as if each had been committed alone before it.
        /// Only `PutTimeline` itself does not: its writes gather into one group commit.
        let commitsAcceptedWritesFirst: Bool
        /// Answers the call; the caller's authority is for widget-level checks.
        let handle: @Sendable (WidgetService, VarlinkCall, CallContext, PeerAuthority) throws -> Void

        init(
            _ method: String, _ role: MethodRole, commitsAcceptedWritesFirst: Bool = true,
            _ handle: @escaping @Sendable (WidgetService, VarlinkCall, CallContext, PeerAuthority) throws -> Void
        ) {
            self.method = method
            self.role = role
            self.commitsAcceptedWritesFirst = commitsAcceptedWritesFirst
            self.handle = handle
        }
    }

    /// The rows, in IDL order.
    static let rows: [Row] = [
        Row("io.widgetd.Device.GetStatus", .anyone) { service, call, context, _ in try service.getStatus(call, context) },
        Row("io.widgetd.Device.SetPasscode", .admin) { service, call, context, _ in try service.setPasscode(call, context) },
        Row("io.widgetd.Device.Unlock", .unlocker) { service, call, context, _ in try service.unlock(call, context) },
        Row("io.widgetd.Device.Lock", .unlocker) { service, call, context, _ in try service.lock(call, context) },
        Row("io.widgetd.Device.Wipe", .admin) { service, call, context, _ in try service.wipe(call, context) },
        Row("io.widgetd.Device.GetSettings", .admin) { service, call, context, _ in try service.getSettings(call, context) },
        Row("io.widgetd.Device.SetSettings", .admin) { service, call, context, _ in try service.setSettings(call, context) },
        Row("io.widgetd.Device.Monitor", .admin) { service, call, context, _ in try service.monitor(call, context) },
        Row("io.widgetd.Provider.PutTimeline", .provider, commitsAcceptedWritesFirst: false) {
            service, call, context, authority in try service.putTimeline(call, context, authority)
        },
        Row("io.widgetd.Provider.AppendEntries", .provider) {
            service, call, context, authority in try service.appendEntries(call, context, authority)
        },
        Row("io.widgetd.Provider.GetTimeline", .provider) {
            service, call, context, authority in try service.getTimeline(call, context, authority)
        },
        Row("io.widgetd.Provider.CloseTimeline", .provider) {
            service, call, context, authority in try service.closeTimeline(call, context, authority)
        },
        Row("io.widgetd.Provider.DeleteTimeline", .provider) {
            service, call, context, authority in try service.deleteTimeline(call, context, authority)
        },
        Row("io.widgetd.Provider.WatchReloads", .provider) {
            service, call, context, authority in try service.watchReloads(call, context, authority)
        },
        Row("io.widgetd.Host.ListWidgets", .host) { service, call, context, _ in try service.listWidgets(call, context) },
        Row("io.widgetd.Host.GetPresentation", .host) { service, call, context, _ in try service.getPresentation(call, context) },
        Row("io.widgetd.Host.Watch", .host) { service, call, context, _ in try service.watch(call, context) },
        Row("io.widgetd.Host.ReloadTimelines", .host) { service, call, context, _ in try service.reloadTimelines(call, context) },
    ]

    /// The rows by method name.
    static let byMethod: [String: Row] = Dictionary(uniqueKeysWithValues: rows.map { ($0.method, $0) })

    /// The row of `method`, if it is an io.widgetd method.
    static func row(_ method: String) -> Row? { byMethod[method] }

    /// The qualified names the service uses outside dispatch (errors, logs, the cached path).
    static let getPresentation = "io.widgetd.Host.GetPresentation"
    static let watch = "io.widgetd.Host.Watch"
    static let putTimeline = "io.widgetd.Provider.PutTimeline"
    static let unlock = "io.widgetd.Device.Unlock"
    static let setPasscode = "io.widgetd.Device.SetPasscode"
}
