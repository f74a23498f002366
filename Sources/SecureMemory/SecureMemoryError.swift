/// Why secure memory could not be had.
///
/// No case carries the memory's content, so an error can be logged as is.
package enum SecureMemoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `sodium_malloc` returned NULL: the process ran out of guarded, locked pages
    /// (about 16,000 live allocations, or `RLIMIT_MEMLOCK`).
    case outOfSecureMemory
    /// `sodium_init` failed; no secure memory can be allocated.
    case initializationFailed

    package var description: String {
        switch self {
        case .outOfSecureMemory:
            "out of secure memory (sodium_malloc failed); raise vm.max_map_count or LimitMEMLOCK="
        case .initializationFailed:
            "libsodium could not be initialised (sodium_init failed)"
        }
    }
}
