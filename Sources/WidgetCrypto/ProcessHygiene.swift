import CSystemShims
import Glibc

/// Process-wide settings that keep secrets out of core dumps and freed memory.
public enum ProcessHygiene {
    /// Which setting could not be applied.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// `prctl(PR_SET_DUMPABLE, 0)` failed.
        case notDumpable(errno: Int32)
        /// `setrlimit(RLIMIT_CORE, 0)` failed.
        case coreLimit(errno: Int32)
        /// `mallopt(M_PERTURB)` was refused.
        case mallocPerturb
        /// Re-executing with the malloc tunable failed.
        case reexec(errno: Int32)

        public var description: String {
            switch self {
            case .notDumpable(let e): "cannot make the process non-dumpable: \(String(cString: strerror(e)))"
            case .coreLimit(let e): "cannot set RLIMIT_CORE to 0: \(String(cString: strerror(e)))"
            case .mallocPerturb: "glibc refused mallopt(M_PERTURB)"
            case .reexec(let e): "cannot re-execute with \(ProcessHygiene.mallocTunable): \(String(cString: strerror(e)))"
            }
        }
    }

    /// The byte glibc writes over freed heap chunks (any non-zero value works).
    public static let perturbByte: Int32 = 0xA5

    /// The glibc tunable that turns off malloc's per-thread cache.
    ///
    /// glibc puts small freed chunks (up to 1 KiB, seven per size) in a thread cache
    /// *before* `M_PERTURB` would overwrite them, so a freed reply or decoded string can
    /// linger there intact (measured: a 300-byte chunk keeps its content with
    /// `M_PERTURB` alone, and is overwritten with the cache off). Tunables are read only
    /// when a process starts.
    public static let mallocTunable = "glibc.malloc.tcache_count=0"

    /// The `GLIBC_TUNABLES` value to run with, or `nil` when `environment` has it already.
    public static func tunablesNeeded(in environment: [String: String]) -> String? {
        let current = environment["GLIBC_TUNABLES"] ?? ""
        if current.split(separator: ":").contains(Substring(mallocTunable)) { return nil }
        return current.isEmpty ? mallocTunable : "\(current):\(mallocTunable)"
    }

    /// Re-executes the running program (same pid, arguments and descriptors, so a
    /// socket passed by systemd survives) with the thread cache off, unless it is off
    /// already. Call it first thing in `main`, before any thread starts.
    public static func reexecWithoutMallocThreadCache(arguments: [String], environment: [String: String]) throws(Failure) {
        guard let tunables = tunablesNeeded(in: environment) else { return }
        setenv("GLIBC_TUNABLES", tunables, 1)
        var argv = arguments.map { strdup($0) }
        argv.append(nil)
        execv("/proc/self/exe", argv)
        // Only reached when execv failed.
        let code = errno
        argv.forEach { free($0) }
        throw .reexec(errno: code)
    }

    /// The soft `RLIMIT_MEMLOCK` in bytes, or `nil` if unlimited.
    ///
    /// `sodium_malloc` locks its pages but carries on unlocked when this limit is
    /// reached, so the daemon should compare it with its cache size and say so.
    public static func lockedMemoryLimit() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(__RLIMIT_MEMLOCK.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Makes the process non-dumpable (no ptrace by other users, no core), sets the
    /// core-size limit to 0, and asks glibc to overwrite freed heap memory, so that a
    /// decrypted value released by Swift does not linger in a free chunk.
    public static func apply() throws(Failure) {
        guard shim_set_dumpable(0) == 0 else { throw .notDumpable(errno: errno) }
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        guard setrlimit(Int32(RLIMIT_CORE.rawValue), &limit) == 0 else { throw .coreLimit(errno: errno) }
        // mallopt returns 1 on success.
        guard shim_malloc_perturb(perturbByte) == 1 else { throw .mallocPerturb }
    }
}
