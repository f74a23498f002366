import Synchronization
import Varlink
import WidgetdWire

/// A `more` call's replies as an `AsyncThrowingStream`, on a connection of its own.
///
/// The connection is read on a thread of its own. When the consumer stops (its task is
/// cancelled, or it drops the stream) the socket is shut down, which wakes the read;
/// the thread then closes the connection and the stream finishes without an error, so
/// the daemon sees the connection end at once. When the daemon ends the connection
/// while the stream was still wanted — it stopped or restarted — the stream throws
/// ``WidgetdError/connectionLost``; an error reply ends it with that error.
enum ReplyStream {
    /// Calls `method` with `more` on a new connection and yields each reply as `decode`
    /// reads it; `whenSent` runs once, when the call is written or the stream has ended
    /// before that (its error is then the stream's), so that nobody waits on it forever.
    static func open<P: Encodable, T: Sendable>(
        socketPath: String, method: WidgetdMethod, parameters: P, whenSent: (@Sendable () -> Void)? = nil,
        decode: @escaping @Sendable (VarlinkReplyMessage) throws(WidgetdError) -> T
    ) -> AsyncThrowingStream<T, any Error> {
        let request: [UInt8]
        do { request = try WireCoding.call(method.fullName, parameters, more: true) } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: T.self, throwing: (any Error).self)
        let state = Mutex(StreamState.starting)
        continuation.onTermination = { _ in
            // Wake the reader; it closes the connection itself (no descriptor reuse under it).
            let socket: ClientSocket? = state.withLock { state in
                defer { state = .stopped }
                if case .reading(let socket) = state { return socket }
                return nil
            }
            socket?.shutdown()
        }
        BlockingThread.start {
            var notified = false
            func notifySent() {
                if !notified { whenSent?() }
                notified = true
            }
            defer { notifySent() }
            let socket: ClientSocket
            do { socket = try ClientSocket(path: socketPath) } catch {
                continuation.finish(throwing: error)
                return
            }
            let stopped = state.withLock { state -> Bool in
                if case .stopped = state { return true }
                state = .reading(socket)
                return false
            }
            if stopped { return }
            do throws(WidgetdError) {
                var failure: WidgetdError?
                try socket.follow(request, sent: notifySent) { reply in
                    do throws(WidgetdError) { continuation.yield(try decode(reply)) } catch {
                        failure = error
                        return false
                    }
                    return true
                }
                if let failure { throw failure }
                continuation.finish()
            } catch {
                let wanted = state.withLock { state -> Bool in
                    if case .stopped = state { return false }
                    return true
                }
                // After a cancellation the shut-down socket reads as lost: that is the clean end.
                if wanted { continuation.finish(throwing: error) } else { continuation.finish() }
            }
            state.withLock { $0 = .stopped }
        }
        return stream
    }

    /// Where a stream's connection is, as its reader and its consumer share it.
    private enum StreamState {
        /// Connecting: a consumer that stops now is seen by the reader before it reads.
        case starting
        /// Reading from this connection: a consumer that stops shuts it down.
        case reading(ClientSocket)
        /// Ended: by the consumer or the reader.
        case stopped
    }
}
