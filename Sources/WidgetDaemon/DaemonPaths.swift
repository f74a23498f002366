import WidgetdWire

/// Where the daemon finds its configuration, keeps its state and listens (DESIGN §7).
package struct DaemonPaths: Sendable, Equatable {
    /// The main configuration file.
    package var configurationFile: String
    /// The state directory: device key, keybag, timelines.
    package var stateDirectory: String
    /// The Varlink socket, used when systemd does not pass one.
    package var socketPath: String

    /// Creates paths.
    package init(configurationFile: String, stateDirectory: String, socketPath: String) {
        self.configurationFile = configurationFile
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
    }

    /// Whether a daemon of this uid reading `configurationFile` is the system instance:
    /// run as root, or reading the system's configuration (its unit runs it as its own
    /// user). Any other is a per-user instance, whose owner is its uid.
    package static func isSystemInstance(uid: UInt32, configurationFile: String) -> Bool {
        uid == 0 || configurationFile == system.configurationFile
    }

    /// Why the defaults cannot be worked out.
    enum Unresolvable: Error, Sendable, Equatable, CustomStringConvertible {
        /// Neither `XDG_*_HOME` nor `HOME` is set (to an absolute path).
        case noHomeDirectory
        /// `XDG_RUNTIME_DIR` is not set (to an absolute path) and the socket is needed:
        /// `su`, ssh without logind and containers leave it out, and `/run/user/UID`
        /// then belongs to nobody who would let this user create a socket in it.
        case noRuntimeDirectory

        /// What to do about it.
        var description: String {
            switch self {
            case .noHomeDirectory:
                "HOME is not set: give --config, --state-directory and --socket, or set HOME"
            case .noRuntimeDirectory:
                "XDG_RUNTIME_DIR is not set (no logind session: su, ssh without logind, a container): give --socket PATH, or set XDG_RUNTIME_DIR, or run widgetd as a systemd --user service (systemctl --user start widgetd.socket)"
            }
        }
    }

    /// The system daemon's paths: root's defaults.
    package static let system = DaemonPaths(
        configurationFile: "/etc/widgetd/widgetd.conf", stateDirectory: "/var/lib/widgetd",
        socketPath: SocketLocation.systemPath)

    /// The defaults for a daemon running as `uid` with `environment`.
    ///
    /// Root gets the system paths; any other user the XDG base directories
    /// (`$XDG_CONFIG_HOME`, default `~/.config`; `$XDG_STATE_HOME`, default
    /// `~/.local/state`; `$XDG_RUNTIME_DIR`, default `/run/user/UID`). Relative XDG values
    /// are ignored, as the XDG specification requires.
    ///
    /// With `needsRuntimeDirectory` (the daemon will create its own socket: no
    /// `--socket`, no socket activation), a missing `XDG_RUNTIME_DIR` is an error rather
    /// than `/run/user/UID`, found before anything is created.
    static func defaults(
        uid: UInt32, environment: [String: String], needsRuntimeDirectory: Bool = false
    ) throws(Unresolvable) -> DaemonPaths {
        if uid == 0 { return system }
        func absolute(_ name: String) -> String? {
            guard let value = environment[name], value.hasPrefix("/") else { return nil }
            return value
        }
        let home = absolute("HOME")
        guard let configHome = absolute("XDG_CONFIG_HOME") ?? home.map({ $0 + "/.config" }),
              let stateHome = absolute("XDG_STATE_HOME") ?? home.map({ $0 + "/.local/state" })
        else { throw .noHomeDirectory }
        if needsRuntimeDirectory, SocketLocation.runtimeDirectory(in: environment) == nil { throw .noRuntimeDirectory }
        return DaemonPaths(
            configurationFile: configHome + "/widgetd/widgetd.conf",
            stateDirectory: stateHome + "/widgetd",
            socketPath: SocketLocation.defaultPath(environment: environment, userID: uid))
    }
}
