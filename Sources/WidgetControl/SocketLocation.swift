/// Where the daemon's socket is (DESIGN §7).
enum SocketLocation {
    /// The system daemon's socket, used by root.
    static let systemPath = "/run/widgetd/widgetd.sock"

    /// `--socket`, else `WIDGETD_SOCKET`, else root's system path or the user's runtime directory.
    ///
    /// Without `XDG_RUNTIME_DIR`, the user's runtime directory is `/run/user/UID`,
    /// where systemd-logind puts it.
    static func resolve(option: String?, environment: [String: String], userID: UInt32) -> String {
        if let option { return option }
        if let fromEnvironment = environment["WIDGETD_SOCKET"], !fromEnvironment.isEmpty { return fromEnvironment }
        if userID == 0 { return systemPath }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(userID)"
        return runtime + "/widgetd/widgetd.sock"
    }

    /// Whether `resolve` had to guess the user's runtime directory: no `--socket`, no
    /// `WIDGETD_SOCKET`, not root, and no `XDG_RUNTIME_DIR` (su, ssh without logind, a
    /// container), so that a daemon not found there may be running elsewhere.
    static func guessedRuntimeDirectory(option: String?, environment: [String: String], userID: UInt32) -> Bool {
        option == nil && (environment["WIDGETD_SOCKET"] ?? "").isEmpty && userID != 0
            && (environment["XDG_RUNTIME_DIR"] ?? "").isEmpty
    }
}
