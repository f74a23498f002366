import Glibc
import WidgetdPOSIX

/// The XDG base directories a user's daemon writes under (`~/.local/state` and the
/// like), made when they are missing as the XDG Base Directory specification asks:
/// "an attempt should be made to create it with permission 0700".
///
/// Without this, a user whose home has no `~/.local/state` yet (a fresh account) could
/// not start widgetd on its defaults.
enum XDGBaseDirectory {
    /// Creates `path` and every missing directory above it with mode 0700; existing
    /// ones are left as they are. The corresponding C function is `mkdir`.
    static func create(_ path: String) throws(SystemError) {
        guard path.hasPrefix("/") else { return }
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            do throws(SystemError) {
                try Syscall.retrying("mkdir \(prefix)") { mkdir(prefix, 0o700) }
            } catch {
                guard error.errno == .fileExists else { throw error }
            }
        }
    }
}
