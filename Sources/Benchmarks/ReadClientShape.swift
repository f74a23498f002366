/// How the read client drives its connections; every server is measured in each shape
/// by the same code, and the shapes are reported side by side.
package enum ReadClientShape: String, Sendable, CaseIterable {
    /// One thread waits on every connection in one `epoll_wait` (``MultiplexedLoop``):
    /// the client costs the machine little, so the server's own cost shows.
    case multiplexed
    /// Each connection its own blocking thread (``ClosedLoop``): how separate host
    /// processes connect. Every request then wakes a client thread, and the server's
    /// replies land on sockets whose readers sleep.
    case threadPerConnection

    /// What a row's subject says of the shape (nothing for the multiplexed one, whose
    /// rows keep their names from earlier reports).
    var subjectSuffix: String {
        switch self {
        case .multiplexed: ""
        case .threadPerConnection: " (thread per connection)"
        }
    }
}
