import CSystemShims
import Glibc

/// Whether the process at the other end of a connection runs in a Flatpak sandbox, and
/// which application it is, as xdg-desktop-portal tells it: by the `/.flatpak-info`
/// that Flatpak mounts read-only at the root of every sandbox, read from outside
/// through `/proc/PID/root`.
///
/// Read once at accept, from a pidfd of the peer that the kernel took when it connected
/// (`SO_PEERPIDFD`), never from the pid alone: a pid is a number the kernel hands out
/// again once its process is gone, so an app that connects and exits could have its
/// connection judged by whatever process gets its pid next (``of(pidfd:proc:)`` says
/// how the pidfd closes that race).
package enum PeerSandbox: Sendable, Hashable, CustomStringConvertible {
    /// Not in a Flatpak sandbox: its root holds no `/.flatpak-info`.
    case unconfined
    /// In a Flatpak sandbox whose `/.flatpak-info` names this application id
    /// (`[Application] name=`).
    case flatpak(appID: String)
    /// It could not be told safely; why. The daemon then gives the peer the least it
    /// could be (widgetd.conf(5), "SANDBOXED APPS").
    case unknown(Unknown)

    /// Why a peer's sandbox could not be told.
    package enum Unknown: Sendable, Hashable, CustomStringConvertible {
        /// No pidfd of the peer: the kernel lacks `SO_PEERPIDFD` (before Linux 6.5:
        /// `ENOPROTOOPT`), or refused it.
        case noPeerPIDFD(Errno)
        /// The process that connected has exited: whoever holds its socket now is unknown.
        case peerGone
        /// Its pid is not visible here (another pid namespace, or `/proc` hides it).
        case notVisible
        /// Its root cannot be opened: `EACCES` for another user's process, or one that
        /// made itself non-dumpable.
        case rootUnreadable(Errno)
        /// Its `/.flatpak-info` is there but cannot be read as a file of at most
        /// ``FlatpakInfo/maxBytes`` (a symbolic link, not a regular file, too large).
        case infoUnreadable(Errno)
        /// Its `/.flatpak-info` names no valid application id, or names one twice.
        case infoMalformed

        /// For logs.
        package var description: String {
            switch self {
            case .noPeerPIDFD(let errno): "no pidfd of the peer (SO_PEERPIDFD: \(errno))"
            case .peerGone: "the process that connected has exited"
            case .notVisible: "the peer's pid is not visible here"
            case .rootUnreadable(let errno): "the peer's root cannot be opened (\(errno))"
            case .infoUnreadable(let errno): "the peer's /.flatpak-info cannot be read (\(errno))"
            case .infoMalformed: "the peer's /.flatpak-info names no valid application id"
            }
        }
    }

    /// For logs: `unconfined`, `flatpak:APP-ID`, or `unknown: REASON`.
    package var description: String {
        switch self {
        case .unconfined: "unconfined"
        case .flatpak(let appID): "flatpak:\(appID)"
        case .unknown(let reason): "unknown: \(reason)"
        }
    }

    /// The sandbox of a connected Unix socket's peer, through the pidfd the kernel took
    /// at connect time. `peerPIDFD` stands in for `getsockopt(SO_PEERPIDFD)`, so that a
    /// test can act as a kernel without it.
    package static func of(
        socket fd: FileDescriptor, proc: String = "/proc",
        peerPIDFD: (FileDescriptor) throws(SystemError) -> FileDescriptor = Syscall.peerPIDFD
    ) -> PeerSandbox {
        let pidfd: FileDescriptor
        do {
            pidfd = try peerPIDFD(fd)
        } catch {
            // ESRCH: the peer exited before the accept; its pid means nothing now.
            return .unknown(error.errno.rawValue == ESRCH ? .peerGone : .noPeerPIDFD(error.errno))
        }
        defer { Syscall.close(pidfd) }
        return of(pidfd: pidfd, proc: proc)
    }

    /// Why this kernel hands out no pidfd of a socket's peer (`SO_PEERPIDFD`, Linux
    /// 6.5), tried on a socket pair; `nil` if it does. Without it every peer's sandbox
    /// is unknown, which the daemon says once at start.
    package static func peerPIDFDUnavailable() -> Errno? {
        var fds: [CInt] = [-1, -1]
        do {
            try Syscall.retrying("socketpair") { socketpair(AF_UNIX, shim_SOCK_STREAM, 0, &fds) }
        } catch {
            return error.errno
        }
        defer { for fd in fds { Syscall.close(FileDescriptor(rawValue: fd)) } }
        do {
            Syscall.close(try Syscall.peerPIDFD(FileDescriptor(rawValue: fds[0])))
            return nil
        } catch {
            return error.errno
        }
    }

    /// The sandbox of the process `pidfd` refers to.
    ///
    /// A pidfd pins the process, not its number: once the process is reaped the number
    /// is free again, and `/proc/PID` may by then be another process's. So:
    /// 1. the pid is read from the pidfd (`/proc/self/fdinfo/FD`, `Pid:`; `-1` once the
    ///    process has been reaped, `0` when it is outside this pid namespace);
    /// 2. `/proc/PID` is opened as a directory descriptor;
    /// 3. the pidfd is asked again: if it still names PID, its process held PID all along
    ///    from step 1 to step 3 (a pid is never handed back to a process once reaped),
    ///    so the directory opened in step 2 is that process's and no other's;
    /// 4. from then on only that directory is used: a `/proc/PID` descriptor stays bound
    ///    to the process it was opened for (its entries fail with `ENOENT` once that
    ///    process is gone, even if PID is reused), so `root` is opened through it, and
    ///    `.flatpak-info` through the root, without a symbolic link at the end
    ///    (an absolute link would be followed in the daemon's root, not the sandbox's).
    /// Any failure after step 1 leaves the sandbox ``unknown(_:)``; only a root that
    /// opens and holds no `.flatpak-info` is ``unconfined``. (`root` of a process that
    /// has exited but is not yet reaped fails to open: such a zombie is ``Unknown/peerGone``,
    /// never unconfined.)
    ///
    /// `proc` is where procfs is mounted.
    package static func of(pidfd: FileDescriptor, proc: String = "/proc") -> PeerSandbox {
        guard let pid = pid(of: pidfd, proc: proc) else { return .unknown(.peerGone) }
        guard pid > 0 else { return .unknown(pid == 0 ? .notVisible : .peerGone) }
        let directory: FileDescriptor
        do {
            directory = try Syscall.openDirectoryPath("\(proc)/\(pid)")
        } catch {
            // ENOENT too: a /proc mounted with hidepid=invisible hides other users' pids.
            return .unknown(.notVisible)
        }
        defer { Syscall.close(directory) }
        guard self.pid(of: pidfd, proc: proc) == pid else { return .unknown(.peerGone) }
        let root: FileDescriptor
        do {
            root = try Syscall.openDirectoryPath("root", relativeTo: directory)
        } catch {
            guard error.errno != .noSuchFileOrDirectory else { return .unknown(.peerGone) }
            // A process of this user whose root we may not open is not dumpable: it took
            // its credentials from root (PAM's helper, `login`), or made itself so. Only
            // the first is told apart: no process in a bubblewrap sandbox, Flatpak's,
            // can be without no_new_privs (bubblewrap sets it before the app runs, and
            // nothing unsets it), so one without it is in no sandbox.
            return hasNoNewPrivileges(directory) == false ? .unconfined : .unknown(.rootUnreadable(error.errno))
        }
        defer { Syscall.close(root) }
        let info: FileDescriptor
        do {
            info = try Syscall.openRegularFile(".flatpak-info", relativeTo: root)
        } catch {
            return error.errno == .noSuchFileOrDirectory ? .unconfined : .unknown(.infoUnreadable(error.errno))
        }
        defer { Syscall.close(info) }
        let text: [UInt8]
        do {
            guard let read = try readAll(info, limit: FlatpakInfo.maxBytes) else {
                return .unknown(.infoUnreadable(Errno(rawValue: EFBIG)))
            }
            text = read
        } catch {
            return .unknown(.infoUnreadable(error.errno))
        }
        guard let appID = FlatpakInfo.applicationID(in: text) else { return .unknown(.infoMalformed) }
        return .flatpak(appID: appID)
    }

    /// Whether the process of `directory` (its `/proc/PID`) runs with `no_new_privs`, from
    /// its `status` (`NoNewPrivs:`, readable whatever the process's dumpability); nil
    /// when that cannot be read.
    static func hasNoNewPrivileges(_ directory: FileDescriptor) -> Bool? {
        guard let status = try? Syscall.openRegularFile("status", relativeTo: directory) else { return nil }
        defer { Syscall.close(status) }
        guard let text = try? readAll(status, limit: 64 << 10) else { return nil }
        return parseNoNewPrivileges(text)
    }

    /// `NoNewPrivs:` of a `/proc/PID/status` text: `0` is false, `1` true; nil without it.
    static func parseNoNewPrivileges(_ text: [UInt8]) -> Bool? {
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let string = String(decoding: line, as: UTF8.self)
            guard string.hasPrefix("NoNewPrivs:") else { continue }
            switch string.dropFirst("NoNewPrivs:".count).filter({ $0 != " " && $0 != "\t" }) {
            case "0": return false
            case "1": return true
            default: return nil
            }
        }
        return nil
    }

    /// The pid a pidfd refers to, from its `fdinfo`: positive until the process is
    /// reaped (a zombie keeps its pid), `-1` after, `0` outside this pid namespace;
    /// `nil` if unreadable.
    static func pid(of pidfd: FileDescriptor, proc: String) -> Int32? {
        guard let fdinfo = try? Syscall.openReadOnly("\(proc)/self/fdinfo/\(pidfd.rawValue)") else { return nil }
        defer { Syscall.close(fdinfo) }
        guard let text = try? readAll(fdinfo, limit: 4096) else { return nil }
        return parsePIDLine(text)
    }

    /// The value of the `Pid:` line of a pidfd's `fdinfo` text.
    static func parsePIDLine(_ text: [UInt8]) -> Int32? {
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let string = String(decoding: line, as: UTF8.self)
            guard string.hasPrefix("Pid:") else { continue }
            return Int32(string.dropFirst("Pid:".count).drop { $0 == " " || $0 == "\t" })
        }
        return nil
    }

    /// Everything `fd` holds, or `nil` if it holds more than `limit` bytes.
    private static func readAll(_ fd: FileDescriptor, limit: Int) throws(SystemError) -> [UInt8]? {
        var result: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            // A regular file opened non-blocking reads as a blocking one would.
            guard let count = try Syscall.read(fd, into: chunk), count > 0 else { return result }
            result += chunk[..<count]
            if result.count > limit { return nil }
        }
    }
}
