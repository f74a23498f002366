import CSystemShims
import Glibc

/// The floor: a single-threaded epoll loop (the shape of widgetd's) that answers each
/// NUL-terminated message with the same bytes. It does no parsing and no encoding, so
/// its figures are what the transport and the client cost on this machine.
package enum EchoServer {
    /// Listens at `path` and serves until killed. Runs in its own process
    /// (`widgetd-bench --echo-server PATH`), like the servers it is compared with.
    package static func serve(at path: String) throws -> Never {
        unlink(path)
        let listener = shim_unix_stream_socket()
        guard listener >= 0 else { throw BenchError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 128) == 0 else { throw BenchError("bind/listen \(path): errno \(errno)") }
        let epoll = shim_epoll_create()
        _ = shim_epoll_ctl(epoll, shim_EPOLL_CTL_ADD, listener, shim_EPOLLIN, UInt64(listener))
        var pending: [Int32: [UInt8]] = [:]
        var data = [UInt64](repeating: 0, count: 64)
        var events = [UInt32](repeating: 0, count: 64)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let ready = shim_epoll_wait(epoll, &data, &events, 64, -1)
            if ready < 0 { continue }
            for i in 0..<Int(ready) {
                let fd = Int32(truncatingIfNeeded: data[i])
                if fd == listener {
                    let client = shim_accept_nonblocking(listener)
                    if client >= 0 { _ = shim_epoll_ctl(epoll, shim_EPOLL_CTL_ADD, client, shim_EPOLLIN, UInt64(client)) }
                    continue
                }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
                    _ = shim_epoll_ctl(epoll, shim_EPOLL_CTL_DEL, fd, 0, 0)
                    close(fd)
                    pending[fd] = nil
                    continue
                }
                guard n > 0 else { continue }
                var message = pending.removeValue(forKey: fd) ?? []
                message.append(contentsOf: buffer[0..<n])
                guard let last = message.lastIndex(of: 0) else {
                    pending[fd] = message
                    continue
                }
                message.withUnsafeBytes { raw in
                    var offset = 0
                    while offset <= last {
                        let sent = send(fd, raw.baseAddress! + offset, last + 1 - offset, Int32(MSG_NOSIGNAL))
                        if sent < 0 { if errno == EINTR || errno == EAGAIN { continue } else { break } }
                        offset += sent
                    }
                }
                if last + 1 < message.count { pending[fd] = Array(message[(last + 1)...]) }
            }
        }
    }
}
