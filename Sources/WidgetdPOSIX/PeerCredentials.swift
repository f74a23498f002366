import CSystemShims
import FoundationEssentials
import Glibc

/// Who is at the other end of a connection, as the kernel vouches for it (`SO_PEERCRED`).
///
/// Read once at accept: the credentials are those of the process that connected, at
/// the time it connected, which is what authorization should rely on.
package struct PeerCredentials: Sendable, Equatable, Hashable {
    /// The peer's process id.
    package var pid: Int32
    /// The peer's effective user id.
    package var uid: UInt32
    /// The peer's effective group id.
    package var gid: UInt32
    /// The peer's supplementary group ids.
    package var groups: [UInt32]
    /// Whether the peer runs in a Flatpak sandbox, and as which app, read at accept
    /// through its pidfd (``PeerSandbox``).
    package var sandbox: PeerSandbox

    /// Creates credentials, e.g. for tests (unconfined unless `sandbox` says otherwise).
    package init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = [], sandbox: PeerSandbox = .unconfined) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.sandbox = sandbox
    }

    /// Whether the peer has `gid` as its primary or a supplementary group.
    package func isMember(of gid: UInt32) -> Bool {
        self.gid == gid || groups.contains(gid)
    }

    /// Reads a connected Unix socket's peer credentials, supplementary groups and sandbox.
    ///
    /// The corresponding C calls are `getsockopt(SO_PEERCRED)` and
    /// `getsockopt(SO_PEERGROUPS)`; when the latter is unavailable the groups are read
    /// from `/proc/PID/status`, which is racy against pid reuse but better than none.
    /// The sandbox is read through `getsockopt(SO_PEERPIDFD)` (``PeerSandbox/of(socket:proc:peerPIDFD:)``),
    /// never through the pid.
    package static func of(socket fd: FileDescriptor) throws(SystemError) -> PeerCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        try Syscall.retrying("getsockopt(SO_PEERCRED)") { shim_peer_credentials(fd.rawValue, &pid, &uid, &gid) }
        let groups = peerGroups(fd) ?? procGroups(pid: pid) ?? []
        return PeerCredentials(pid: pid, uid: uid, gid: gid, groups: groups, sandbox: PeerSandbox.of(socket: fd))
    }

    /// The groups from `SO_PEERGROUPS`, growing the buffer on `ERANGE`.
    private static func peerGroups(_ fd: FileDescriptor) -> [UInt32]? {
        var capacity = 64
        while capacity <= 65_536 {
            var buffer = [gid_t](repeating: 0, count: capacity)
            let count = buffer.withUnsafeMutableBufferPointer { shim_peer_groups(fd.rawValue, $0.baseAddress, Int32(capacity)) }
            if count >= 0 { return Array(buffer.prefix(Int(count))) }
            guard Errno.current.rawValue == ERANGE else { return nil }
            capacity *= 4
        }
        return nil
    }

    /// The `Groups:` line of `/proc/PID/status`.
    private static func procGroups(pid: pid_t) -> [UInt32]? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        return parseGroupsLine(status)
    }

    /// The gids of the `Groups:` line of a `/proc/PID/status` text.
    static func parseGroupsLine(_ status: String) -> [UInt32]? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") }) else { return nil }
        return line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { UInt32($0) }
    }
}
