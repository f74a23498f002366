import Glibc

/// User and group names for the ids widgetd reports, as `ls -l` shows them.
enum AccountName {
    /// The user's name, or the uid in digits when no user has it.
    /// The corresponding C function is `getpwuid_r`.
    static func user(_ uid: UInt32) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return String(uid)
        }
        return String(cString: name)
    }

    /// The group's name, or the gid in digits when no group has it.
    /// The corresponding C function is `getgrgid_r`.
    static func group(_ gid: UInt32) -> String {
        var entry = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name else {
            return String(gid)
        }
        return String(cString: name)
    }
}
