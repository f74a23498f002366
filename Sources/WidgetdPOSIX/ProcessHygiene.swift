import CSystemShims
import Glibc

/// Process-wide settings that keep secrets out of core dumps and freed memory.
///
/// Process setup through `prctl`, `setrlimit`, glibc's `mallopt` and tunables: system
/// calls only, no libsodium.
package enum ProcessHygiene {
    /// Which setting could not be applied.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// `prctl(PR_SET_DUMPABLE, 0)` failed.
        case notDumpable(SystemError)
        /// `setrlimit(RLIMIT_CORE, 0)` failed.
        case coreLimit(SystemError)
        /// `mallopt(M_PERTURB)` was refused.
        case mallocPerturb

        package var description: String {
            switch self {
            case .notDumpable(let error): "cannot make the process non-dumpable: \(error.errno)"
            case .coreLimit(let error): "cannot set RLIMIT_CORE to 0: \(error.errno)"
            case .mallocPerturb: "glibc refused mallopt(M_PERTURB)"
            }
        }
    }

    /// The byte glibc writes over freed heap chunks (any non-zero value works).
    package static let perturbByte: Int32 = 0xA5

    /// The `GLIBC_TUNABLES` entry that turns glibc's per-thread malloc cache off.
    ///
    /// Small chunks freed into that cache (up to about 1 KiB) skip `M_PERTURB`, so a
    /// buffer freed inside Foundation (the JSON encoder's, holding a presentation with
    /// class-A content) kept its bytes after a lock (MemoryHygieneTests). Tunables are
    /// read only when a process starts, hence ``restartWithoutMallocCache()``.
    package static let noMallocCacheTunable = "glibc.malloc.tcache_count=0"

    /// Re-executes this program (`/proc/self/exe`, same arguments, same pid) with
    /// ``noMallocCacheTunable`` added to `GLIBC_TUNABLES`, unless it is there already.
    ///
    /// Returns only when no restart is needed (`nil`) or `execv` failed (its errno);
    /// call it first thing, before any thread, file or socket is opened.
    package static func restartWithoutMallocCache() -> Int32? {
        let name = "GLIBC_TUNABLES"
        let current = getenv(name).map { String(cString: $0) } ?? ""
        if current.split(separator: ":").contains(Substring(noMallocCacheTunable)) { return nil }
        setenv(name, current.isEmpty ? noMallocCacheTunable : "\(current):\(noMallocCacheTunable)", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        return errno
    }

    /// The soft `RLIMIT_MEMLOCK` in bytes, or `nil` if unlimited.
    ///
    /// `sodium_malloc` locks its pages but carries on unlocked when this limit is
    /// reached, so the daemon should compare it with its cache size and say so.
    package static func lockedMemoryLimit() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(__RLIMIT_MEMLOCK.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Makes the process non-dumpable (no ptrace by other users, no core), sets the
    /// core-size limit to 0, and asks glibc to overwrite freed heap memory, so that a
    /// decrypted value released by Swift does not linger in a free chunk.
    package static func apply() throws(Failure) {
        do throws(SystemError) {
            try Syscall.retrying("prctl(PR_SET_DUMPABLE)") { shim_set_dumpable(0) }
        } catch {
            throw .notDumpable(error)
        }
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        do throws(SystemError) {
            try Syscall.retrying("setrlimit(RLIMIT_CORE)") { setrlimit(Int32(RLIMIT_CORE.rawValue), &limit) }
        } catch {
            throw .coreLimit(error)
        }
        // mallopt returns 1 on success.
        guard shim_malloc_perturb(perturbByte) == 1 else { throw .mallocPerturb }
    }

    /// Hands the heap's free pages back to the kernel (`malloc_trim(0)`).
    ///
    /// glibc only trims the top of the main heap by itself; the free chunks between
    /// live ones that a burst of work (indexing every stored timeline) leaves behind
    /// stay resident otherwise. Call it after such a burst, not per request: it walks
    /// every arena's free lists.
    package static func returnFreeMemory() {
        _ = shim_malloc_trim()
    }
}
