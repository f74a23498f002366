import WidgetdPOSIX
import WidgetModel

/// What one peer may do, derived once per connection from its credentials and its
/// sandbox, both read when the connection was accepted (DESIGN §6).
///
/// A peer can hold several roles at once: an administrator is everything; a process
/// running as a provider's user may also be a host.
struct PeerAuthority: Equatable, Sendable {
    /// root, the daemon's own uid, or a member of `AdminGroup=`.
    var isAdmin = false
    /// A member of `UnlockGroup=`: `Unlock`, `Lock`, `GetStatus`.
    var canUnlock = false
    /// A member of `HostGroup=`: the io.widgetd.Host interface.
    var isHost = false
    /// The provider ids whose `User=`/`Group=` the peer matches.
    var providers: Set<String> = []

    /// May the peer write and read the timelines of `widget`?
    func mayProvide(_ widget: WidgetID) -> Bool {
        isAdmin || providers.contains(widget.provider)
    }
}

/// Decides each peer's authority from the `[Access]` groups and the registered providers.
struct Authorization: Sendable {
    var configuration: Configuration
    /// The daemon's own uid: a peer with it is an administrator.
    var daemonUID: UInt32

    /// The registered providers.
    var providers: [ProviderRegistration] { configuration.providers }

    /// The authority of a peer with these credentials and this sandbox (DESIGN §6).
    ///
    /// - An app in a Flatpak sandbox is the providers registered with its `App=` (and
    ///   whose `User=`/`Group=`, if set, admit it), and nothing more: not admin, unlock
    ///   or host, whatever its uid. With no such provider it may call `GetStatus` and
    ///   `org.varlink.service` only.
    /// - A peer whose sandbox could not be told (``PeerSandbox/unknown(_:)``: a kernel
    ///   without `SO_PEERPIDFD`, a process gone before its accept, a root that cannot be
    ///   read) and that runs as the daemon's own uid gets nothing either. That uid is the
    ///   owner on a per-user instance, where every app runs as it: only the sandbox tells
    ///   an app from the owner, so what cannot be shown unsandboxed is taken for an app
    ///   registered for nothing (fail closed). Of any other uid, it is judged by its
    ///   credentials, as before sandboxes were told apart: those uids are told apart by
    ///   credentials already, and the system instance (its own user, `/proc` hidden)
    ///   cannot see other users' processes at all.
    /// - Any other peer is judged by its credentials.
    func authority(of peer: PeerCredentials) -> PeerAuthority {
        switch peer.sandbox {
        case .flatpak:
            var authority = PeerAuthority()
            authority.providers = Set(providers.filter { $0.admits(peer) }.map(\.id))
            return authority
        case .unknown where peer.uid == daemonUID:
            return PeerAuthority()
        case .unknown, .unconfined:
            return authority(ofCredentials: peer)
        }
    }

    /// The authority that a peer's credentials alone give it.
    private func authority(ofCredentials peer: PeerCredentials) -> PeerAuthority {
        func member(_ gid: UInt32?) -> Bool { gid.map(peer.isMember(of:)) ?? false }
        var authority = PeerAuthority()
        authority.isAdmin = peer.uid == 0 || peer.uid == daemonUID || member(configuration.adminGroup)
        authority.canUnlock = authority.isAdmin || member(configuration.unlockGroup)
        authority.isHost = authority.isAdmin || member(configuration.hostGroup)
        authority.providers = Set(providers.filter { $0.admits(peer) }.map(\.id))
        return authority
    }

    /// May a peer take the connections reserved for the owner, beyond its uid's limit?
    /// Admin and unlock peers may: whatever other peers do, the owner can lock and unlock.
    func mayUseReserve(_ peer: PeerCredentials) -> Bool {
        let authority = authority(of: peer)
        return authority.isAdmin || authority.canUnlock
    }

    /// May `authority` call `method` at all? Widget-level checks come later, per call.
    /// A method outside ``MethodTable`` is for administrators only (who then hear that
    /// it does not exist).
    func permits(_ authority: PeerAuthority, method: String) -> Bool {
        guard let row = MethodTable.row(method) else { return authority.isAdmin }
        return permits(authority, role: row.role)
    }

    /// Does `authority` hold `role`?
    func permits(_ authority: PeerAuthority, role: MethodRole) -> Bool {
        switch role {
        case .anyone: true
        case .unlocker: authority.isAdmin || authority.canUnlock
        case .host: authority.isAdmin || authority.isHost
        case .provider: authority.isAdmin || !authority.providers.isEmpty
        case .admin: authority.isAdmin
        }
    }
}
