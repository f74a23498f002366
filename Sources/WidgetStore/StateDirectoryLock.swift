import Glibc
import StoreFiles
import WidgetdPOSIX

/// An exclusive claim on a state directory for as long as it lives: a second widgetd
/// started on the same directory stops with `stateDirectoryInUse` instead of folding
/// and emptying the first one's journal, or racing it on the files.
///
/// A `flock` on the directory itself: the kernel drops it when the process ends,
/// however it ends, so no stale lock file is ever left to remove.
package final class StateDirectoryLock {
    private let fd: FileDescriptor

    /// Claims `stateDirectory`, creating it if needed (mode 0700); refuses one the store
    /// may not trust (`FileSystem.makeDirectory`).
    /// Used by the daemon before any store exists, so it throws the facade's error.
    package init(stateDirectory: String) throws(StoreError) {
        do throws(FileError) { fd = try Self.claim(stateDirectory) } catch { throw StoreError(error) }
    }

    private static func claim(_ stateDirectory: String) throws(FileError) -> FileDescriptor {
        // A link, a foreign owner or a group-writable directory is refused here, at start;
        // a new one is made durably (synced into its parent), as the store makes it.
        try FileSystem.makeDirectory(stateDirectory)
        let fd = try FileSystem.openDirectory(stateDirectory)
        do throws(SystemError) {
            try Syscall.retrying("flock") { flock(fd.rawValue, LOCK_EX | LOCK_NB) }
        } catch {
            Syscall.close(fd)
            throw error.errno == .wouldBlock
                ? .stateDirectoryInUse(path: stateDirectory) : FileError(error, path: stateDirectory)
        }
        return fd
    }

    deinit { Syscall.close(fd) }
}
