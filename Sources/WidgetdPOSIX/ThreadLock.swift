import Glibc

/// A mutual-exclusion lock over a pthread mutex, in place of Foundation's `NSLock`
/// (which only full Foundation has: FoundationEssentials, which keeps ICU's 34 MB of
/// data out of the binaries, does not). Unlike `NSLock.withLock`, `withLock` keeps the
/// body's error type.
///
/// Not recursive: a thread that takes it twice deadlocks. Safe from any thread.
package final class ThreadLock: @unchecked Sendable {
    /// Heap-allocated: a pthread mutex must not move while in use.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() {
        // Fails only without memory (ENOMEM) or with bad attributes: neither can be
        // handled here, and a lock that does not work must not be used.
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it if another thread holds it.
    package func lock() {
        // EINVAL and EDEADLK can only be bugs here.
        precondition(pthread_mutex_lock(mutex) == 0, "pthread_mutex_lock failed")
    }

    /// Releases the lock; the calling thread must hold it.
    package func unlock() {
        precondition(pthread_mutex_unlock(mutex) == 0, "pthread_mutex_unlock failed")
    }

    /// Runs `body` holding the lock.
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
