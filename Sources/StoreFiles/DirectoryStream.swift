import FoundationEssentials
import Glibc
import WidgetdPOSIX

/// A directory read a few names at a time (`readdir`), so that indexing a directory of
/// a million timeline files neither stops the loop to list it whole nor holds every
/// name at once (a `[String]` of a million 36-byte names is ≈ 80 MB).
///
/// POSIX returns every entry that is neither added nor removed during the reading
/// exactly once; the store records the files it writes or removes meanwhile itself.
///
/// Threading: single-threaded, on the store's thread.
package final class DirectoryStream {
    private let path: String
    private var dir: OpaquePointer?

    /// Opens `path` for reading.
    package init(_ path: String) throws(FileError) {
        self.path = path
        guard let dir = opendir(path) else { throw FileError(SystemError("opendir", errno: .current), path: path) }
        self.dir = dir
    }

    deinit { if let dir { closedir(dir) } }

    /// The next name (never `.` or `..`), or `nil` at the end (the directory is closed then).
    package func next() throws(FileError) -> String? {
        guard let dir else { return nil }
        while true {
            // readdir returns NULL both at the end and on error; errno tells them apart.
            errno = 0
            guard let entry = readdir(dir) else {
                let failure = errno
                closedir(dir)
                self.dir = nil
                if failure != 0 { throw FileError(SystemError("readdir", errno: Errno(rawValue: failure)), path: path) }
                return nil
            }
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { return name }
        }
    }
}
