import VarlinkTransport
import WidgetdPOSIX

/// The authorization in force and the authority it gives each open connection's peer,
/// computed once at the connection's first call from the identity read when the
/// connection was accepted (credentials and sandbox, ``PeerCredentials``), which
/// nothing the peer does afterwards changes. One instance, shared by the dispatch,
/// the ``DeviceController`` (a reloaded configuration replaces it) and the
/// ``TimelineService`` (provider registrations, the cached path's permission).
final class AccessControl {
    /// Roles and provider registrations.
    private(set) var authorization: Authorization
    /// Authority per open connection.
    private var authorities: [ConnectionID: PeerAuthority] = [:]

    init(_ authorization: Authorization) { self.authorization = authorization }

    /// The authority of a call's peer.
    func authority(for context: CallContext) -> PeerAuthority {
        authority(for: context.connection, peer: context.peer)
    }

    /// The authority of `connection`'s peer under the authorization in force.
    func authority(for connection: ConnectionID, peer: PeerCredentials) -> PeerAuthority {
        if let known = authorities[connection] { return known }
        let authority = authorization.authority(of: peer)
        authorities[connection] = authority
        return authority
    }

    /// A reloaded configuration: every connection's next call is judged again.
    func replace(_ authorization: Authorization) {
        self.authorization = authorization
        authorities.removeAll()
    }

    /// A connection closed.
    func remove(connection: ConnectionID) { authorities[connection] = nil }
}

/// The server asks the authorization in force at each accept (a reloaded
/// configuration's groups apply to the next connections).
extension AccessControl: ConnectionReservePolicy {
    func mayUseReserve(_ peer: PeerCredentials) -> Bool { authorization.mayUseReserve(peer) }
}
