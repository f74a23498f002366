import Glibc

/// Runs blocking socket work on a thread of its own, off Swift's cooperative pool.
///
/// The pool has one thread per core (two here): a blocked `recv` on it would stall every
/// task of the process. A thread per call costs tens of microseconds, little beside a
/// round trip to the daemon; a stream holds its thread until it ends.
enum BlockingThread {
    /// Starts `body` on a new detached thread.
    ///
    /// The corresponding C function is `pthread_create`.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        // Failing to start a thread means the process is out of resources: nothing to recover.
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }

    /// Runs `body` on a new thread and returns its result to the awaiting task.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(WidgetdError) -> T) async throws(WidgetdError) -> T {
        let result: Result<T, WidgetdError> = await withCheckedContinuation { continuation in
            start { continuation.resume(returning: Result { () throws(WidgetdError) in try body() }) }
        }
        return try result.get()
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
