import WidgetModel
import WidgetdPOSIX

/// Why a Varlink call did not produce a reply.
public enum VarlinkClientError: Error, Equatable {
    /// Nothing accepts connections at the path: no socket, or nobody listening (the `Errno` given).
    case unreachable(path: String, errorNumber: Errno)
    /// The socket exists but this user may not connect to it.
    case accessDenied(path: String)
    /// The path cannot be a Unix socket address (too long, or holds a NUL).
    case invalidPath(String)
    /// The daemon closed the connection before replying.
    case connectionClosed
    /// Reading or writing the socket failed with the `Errno` given.
    case io(errorNumber: Errno)
    /// The reply was not a Varlink message.
    case malformedReply(String)
    /// The daemon answered with a Varlink error, e.g. `io.widgetd.WrongPasscode`.
    case remote(name: String, parameters: [String: JSONValue])
}
