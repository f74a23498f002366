/// Where the daemon's socket is (DESIGN §7): the one lookup that widgetd, widgetctl and
/// the client library share, so that a client finds the socket its daemon listens on.
///
/// Pure: the caller passes the environment and the user id.
public enum SocketLocation {
    /// The system daemon's socket, root's default.
    public static let systemPath = "/run/widgetd/widgetd.sock"

    /// The variable a client's socket may be given by, ahead of the defaults.
    public static let environmentVariable = "WIDGETD_SOCKET"

    /// The default socket for a daemon or client running as `userID`: root's system
    /// path, else `widgetd/widgetd.sock` in the user's runtime directory.
    ///
    /// The runtime directory is `XDG_RUNTIME_DIR` when absolute (the XDG specification
    /// ignores a relative one), else `/run/user/UID`, where systemd-logind puts it.
    public static func defaultPath(environment: [String: String], userID: UInt32) -> String {
        if userID == 0 { return systemPath }
        return (runtimeDirectory(in: environment) ?? "/run/user/\(userID)") + "/widgetd/widgetd.sock"
    }

    /// A client's socket: `option` (`--socket`), else `WIDGETD_SOCKET`, else ``defaultPath(environment:userID:)``.
    public static func resolve(option: String?, environment: [String: String], userID: UInt32) -> String {
        if let option { return option }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty { return fromEnvironment }
        return defaultPath(environment: environment, userID: userID)
    }

    /// Whether ``resolve(option:environment:userID:)`` had to guess the user's runtime
    /// directory: no `--socket`, no `WIDGETD_SOCKET`, not root, and no usable
    /// `XDG_RUNTIME_DIR` (su, ssh without logind, a container), so that a daemon not
    /// found there may be running elsewhere.
    public static func guessedRuntimeDirectory(option: String?, environment: [String: String], userID: UInt32) -> Bool {
        option == nil && (environment[environmentVariable] ?? "").isEmpty && userID != 0
            && runtimeDirectory(in: environment) == nil
    }

    /// `XDG_RUNTIME_DIR` when it is an absolute path.
    public static func runtimeDirectory(in environment: [String: String]) -> String? {
        guard let value = environment["XDG_RUNTIME_DIR"], value.hasPrefix("/") else { return nil }
        return value
    }
}
