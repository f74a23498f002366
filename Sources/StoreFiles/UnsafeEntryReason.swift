import Glibc

/// Why the store refused an entry of its state directory without reading it.
///
/// Whoever can write the state directory could plant a FIFO (an `open` that never
/// returns), a link to a file elsewhere, or a file of another user; the store opens
/// nothing of the kind, and trusts no directory that others may write.
package enum UnsafeEntryReason: Sendable, Equatable, CustomStringConvertible {
    /// A symbolic link: the store never follows one inside its state directory.
    case symbolicLink
    /// Not a regular file (a FIFO, socket, device or directory).
    case notRegularFile
    /// Not a directory where the store keeps one.
    case notDirectory
    /// Owned by another user than the daemon's.
    case foreignOwner(uid: UInt32)
    /// A directory that its group or others may write (`mode` is its permission bits).
    case writableByOthers(mode: UInt32)

    package var description: String {
        switch self {
        case .symbolicLink: "is a symbolic link, which widgetd never follows in its state directory"
        case .notRegularFile: "is not a regular file (a FIFO, socket, device or directory)"
        case .notDirectory: "is not a directory"
        case .foreignOwner(let uid): "is owned by uid \(uid), not by the daemon's uid \(geteuid())"
        case .writableByOthers(let mode):
            "is writable by its group or others (mode \(String(mode, radix: 8))); fix with chmod go-w"
        }
    }
}
