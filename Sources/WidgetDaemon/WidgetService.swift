import FoundationEssentials
import Logging
import Varlink
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// The io.widgetd.* methods behind Varlink: dispatch through ``MethodTable`` to the
/// method's owner, the ``DeviceController`` (keys, passcodes, settings) or the
/// ``TimelineService`` (hosts and providers). They share the store, the scheduler's
/// clock, the logger and the ``AccessControl``, made here once and passed in; the
/// device side tells the timeline side of each change as its ``DeviceChangeFollower``.
///
/// Threading: everything runs on the scheduler's loop thread (see the two owners).
final class WidgetService: VarlinkCallHandler {
    let access: AccessControl
    let device: DeviceController
    let timelines: TimelineService

    init(
        scheduler: any Scheduling, store: TimelineStore, authorization: Authorization, limits: TimelineLimits,
        logger: Logger
    ) {
        access = AccessControl(authorization)
        device = DeviceController(scheduler: scheduler, store: store, access: access, logger: logger)
        timelines = TimelineService(
            scheduler: scheduler, store: store, access: access, device: device, limits: limits, logger: logger)
        device.follower = timelines
        timelines.start()
        device.start()
        // The keys allocated while opening the store may have hit the limit already.
        device.reportMemoryNotLocked()
    }

    func handle(_ call: VarlinkCall, context: CallContext) {
        timelines.committer.served(context.connection)
        let authority = access.authority(for: context)
        guard let row = MethodTable.row(call.method) else {
            // Not an io.widgetd method: only an administrator learns that it does not exist.
            guard authority.isAdmin else { return context.deny(call.method) }
            let known = WidgetdInterface(rawValue: call.interface) != nil
            return context.fail(known ? .methodNotFound(call.method) : .interfaceNotFound(call.interface))
        }
        // The role first: a call refused waits for no commit. Then only the writes it
        // must see (`MethodTable.WriteWait`): no other peer's commit is waited for here.
        guard access.authorization.permits(authority, role: row.role) else { return context.deny(call.method) }
        timelines.committer.settle(row.waits)
        do throws(ServiceError) { try row.handle(self, call, context, authority) } catch {
            context.fail(with: error, method: call.method)
        }
        device.reportMemoryNotLocked()
    }

    /// `PutTimeline` and `AppendEntries` are decoded in the walk that checks their
    /// parameters as JSON (`ProviderParameters`); every other call's are checked alone.
    func readParameters(of call: inout VarlinkCall) throws(VarlinkCallDecodingError) {
        guard try !ProviderParameters.read(of: &call, transcribingWith: timelines.bodies, limits: timelines.limits) else { return }
        try call.checkParameters()
    }

    func cachedReply(
        to message: UnsafeRawBufferPointer, connection: ConnectionID, peer: PeerCredentials, now: Date, permit: inout UInt64,
        protection: inout (any OutputTag)?
    ) -> UnsafeRawBufferPointer? {
        timelines.committer.served(connection)
        return timelines.cachedReply(
            to: message, connection: connection, peer: peer, now: now, permit: &permit, protection: &protection)
    }

    /// Commits every accepted write now and answers each (a stop goes through here).
    func commitPendingWrites() { timelines.commitPendingWrites() }

    func connectionClosed(_ id: ConnectionID) {
        access.remove(connection: id)
        timelines.connectionClosed(id)
        device.connectionClosed(id)
    }
}
