import Glibc
import Varlink
import WidgetModel
import WidgetdClient
import WidgetdWire

/// Turns a failed call into the one line a person reads and the exit code (and, with
/// `--json`, the error object) a script reads.
enum DaemonErrorMessage {
    /// The message and exit code for a call that got no reply: `error` is the client
    /// socket's (an error reply goes to ``failure(forErrorReply:parameters:socketPath:)``).
    ///
    /// `socketPath`, when given, is the socket the call went to: it tells a per-user
    /// instance from the system one.
    /// When the socket's directory lets nobody but its owner in (a per-user instance's
    /// `0700` runtime directory), who that owner is; `nil` otherwise.
    static func privateDirectoryHint(_ path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        var status = stat()
        guard stat(directory, &status) == 0, status.st_mode & 0o077 == 0 else { return nil }
        let owner = AccountName.user(status.st_uid)
        return "its directory \(directory) is private to \(owner) (mode 0\(String(status.st_mode & 0o777, radix: 8))): "
            + "run widgetctl as \(owner), or reach a widgetd whose socket you may use"
    }

    static func failure(for error: WidgetdError, socketPath: String? = nil) -> CommandFailure {
        switch error {
        case .daemonUnavailable(let path, let errorNumber):
            switch errorNumber {
            case EACCES, EPERM:
                // A per-user instance's socket sits in a directory only its owner may
                // enter: no group can help there, its owner can.
                let hint = privateDirectoryHint(path) ?? "ask an administrator to add you to a widgetd group"
                return CommandFailure(
                    "permission denied: cannot connect to \(path) (\(hint))",
                    exitCode: .permissionDenied
                ).reported(as: CommandFailure.Name.socketAccessDenied, ["socket": .string(path)])
            case ENOENT, ENOTDIR:
                return CommandFailure("widgetd is not running (no socket at \(path)); \(startHint(path))", exitCode: .unavailable)
                    .reported(as: CommandFailure.Name.daemonUnavailable, ["socket": .string(path)])
            case ECONNREFUSED:
                // connect(2) says the same of a socket nobody listens on and of a file that
                // is no socket at all: tell them apart, since only one is fixed by starting widgetd.
                guard isSocket(path) else {
                    return CommandFailure(
                        "\(path) is not a socket: give widgetd's socket with --socket PATH or WIDGETD_SOCKET",
                        exitCode: .unavailable
                    ).reported(as: CommandFailure.Name.daemonUnavailable, ["socket": .string(path)])
                }
                return CommandFailure(
                    "widgetd is not running (nothing listens on \(path)); \(startHint(path))", exitCode: .unavailable
                ).reported(as: CommandFailure.Name.daemonUnavailable, ["socket": .string(path)])
            default:
                return CommandFailure("cannot reach widgetd at \(path): \(describe(errorNumber))", exitCode: .unavailable)
                    .reported(as: CommandFailure.Name.daemonUnavailable, ["socket": .string(path)])
            }
        case .invalidSocketPath(let path):
            return CommandFailure("not a usable socket path: \(path)", exitCode: .usage)
        case .connectionLost:
            return CommandFailure("widgetd closed the connection without answering", exitCode: .unavailable)
                .reported(as: CommandFailure.Name.daemonUnavailable, [:])
        case .io(let errorNumber):
            return CommandFailure("lost the connection to widgetd: \(describe(errorNumber))", exitCode: .unavailable)
                .reported(as: CommandFailure.Name.daemonUnavailable, [:])
        case .malformedReply(let reason):
            let failure = CommandFailure("widgetd sent a reply widgetctl does not understand (\(reason))")
            return failure.reported(as: CommandFailure.Name.malformedReply, ["message": .string(failure.message)])
        case .protectedDataUnavailable, .permissionDenied, .widgetNotFound, .providerNotRegistered, .unavailableOnSurface,
            .invalidTimeline, .tooLarge, .wrongPasscode, .tryAgainLater, .passcodeRequired, .unlockInterrupted, .wiped,
            .storageFailure, .actionNotAvailable, .providerUnavailable, .invalidParameter, .otherVarlinkError:
            // The socket returns error replies, which widgetctl reads with their parameters
            // (failure(forErrorReply:…)): it never throws these.
            return CommandFailure("widgetd failed: \(error)")
        }
    }

    /// The message, exit code and reported error for the daemon's error reply `name`
    /// with its `parameters`.
    static func failure(forErrorReply name: String, parameters: [String: JSONValue], socketPath: String? = nil) -> CommandFailure {
        remote(name: name, parameters: parameters, socketPath: socketPath).reported(as: name, parameters)
    }

    /// How to start widgetd, or reach the one that runs: systemd's units for the
    /// instance whose socket `path` is, the daemon itself, and the two ways to name a socket.
    static func startHint(_ path: String) -> String {
        let units = path == SocketLocation.systemPath ? "systemctl start widgetd.socket" : "systemctl --user start widgetd.socket"
        return "start it with '\(units)' (or run 'widgetd'), or give its socket with --socket PATH or WIDGETD_SOCKET"
    }

    /// Whether `path` is a socket (a missing path is not). The corresponding C function is `stat`.
    private static func isSocket(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return status.st_mode & S_IFMT == S_IFSOCK
    }

    /// The message for `PermissionDenied`: for a widget refused to its caller, the
    /// provider and who may write for it (the daemon's `provider`, `user`, `group`), and
    /// where that is set; in a per-user instance, that its owner may write every provider.
    static func permissionDenied(_ parameters: [String: JSONValue], socketPath: String?) -> String {
        let perUser = socketPath.map { $0 != SocketLocation.systemPath } ?? false
        guard case .string(let provider)? = parameters["provider"] else {
            return "permission denied: your user may not do this (see the [Access] groups in widgetd.conf(5))"
        }
        func id(_ key: String) -> UInt32? {
            if case .number(let value)? = parameters[key], let id = UInt32(exactly: value.doubleValue) { return id }
            return nil
        }
        var writers: [String] = []
        if let user = id("user") { writers.append("user \(AccountName.user(user))") }
        if let group = id("group") { writers.append("group \(AccountName.group(group))") }
        if writers.isEmpty {
            // Every registration names a writer: none means the provider is not registered,
            // often because its providers.d/ file is disabled by an error.
            return "permission denied: provider \(provider) is not registered, so only an administrator may write its widgets; "
                + "if providers.d/ has a file for it, check it with 'widgetd --check-config' and see widgetd's log"
        }
        var message = "permission denied: only \(writers.joined(separator: " and ")) "
            + "(User=/Group= of provider \(provider) in providers.d/) or an administrator may write its widgets"
        if perUser { message += "; in this per-user instance its owner may write every provider" }
        return message
    }

    /// `ProviderNotRegistered` once the caller's `ListProviders` is known: an administrator
    /// (the only caller who hears it) learns which providers.d/ files register nothing and
    /// why, or, when none does, that a file is missing.
    static func providerNotRegistered(_ failure: CommandFailure, disabled: [DisabledProviderFile]) -> CommandFailure {
        guard case .string(let provider)? = failure.parameters["provider"] else { return failure }
        let message: String
        if disabled.isEmpty {
            message = "provider \(provider) is not registered: add a file for it to providers.d/ (widgetd.conf(5)) and reload widgetd"
        } else {
            let files = disabled.map { file in
                (file.line.map { "\(file.file):\($0)" } ?? file.file) + ": " + file.reason
            }
            message = "provider \(provider) is not registered; these providers.d/ files register nothing: "
                + files.joined(separator: "; ")
                + " (fix them, check with 'widgetd --check-config', then reload widgetd)"
        }
        return CommandFailure(message, exitCode: failure.exitCode, name: failure.name, parameters: failure.parameters)
    }

    /// The message and exit code for a Varlink error reply.
    static func remote(name: String, parameters: [String: JSONValue], socketPath: String? = nil) -> CommandFailure {
        func string(_ key: String) -> String {
            if case .string(let value)? = parameters[key] { return value }
            return "?"
        }
        func number(_ key: String) -> Double? {
            if case .number(let value)? = parameters[key] { return value.doubleValue }
            return nil
        }
        // Varlink's own PermissionDenied reads as widgetd's: the same refusal.
        let known = WidgetdErrorName(fullName: name) ?? (name == VarlinkError.permissionDenied.name ? .permissionDenied : nil)
        switch known {
        case .protectedDataUnavailable?:
            return CommandFailure(
                "protected data unavailable: unlock first (widgetctl unlock)", exitCode: .protectedDataUnavailable)
        case .permissionDenied?:
            return CommandFailure(permissionDenied(parameters, socketPath: socketPath), exitCode: .permissionDenied)
        case .widgetNotFound?:
            return CommandFailure("no widget \(string("widget")) (widgetctl list shows the stored widgets)")
        case .providerNotRegistered?:
            return CommandFailure(
                "provider \(string("provider")) is not registered: if providers.d/ has a file for it, that file is disabled by an error (run 'widgetd --check-config', see widgetd's log and widgetctl providers); otherwise add one (widgetd.conf(5))")
        case .unavailableOnSurface?:
            return CommandFailure(
                "this widget is not shown on the \(string("surface")) surface: its data protection class forbids it")
        case .invalidTimeline?:
            return CommandFailure("invalid timeline: \(string("reason"))")
        case .tooLarge?:
            let limit = number("limit").map { String(Int($0)) } ?? "?"
            return CommandFailure("timeline too large: widgetd accepts at most \(limit) bytes")
        case .wrongPasscode?:
            let attempts = number("failedAttempts").map { Int($0) } ?? 0
            var message = "wrong passcode (\(attempts) failed attempt\(attempts == 1 ? "" : "s"))"
            if let wait = number("retryAfter"), wait > 0 {
                message += "; try again in \(DurationText.format(seconds: wait))"
            }
            return CommandFailure(message, exitCode: .wrongPasscode)
        case .tryAgainLater?:
            let wait = DurationText.format(seconds: number("retryAfter") ?? 0)
            return CommandFailure("too many failed attempts: try again in \(wait)", exitCode: .tryAgainLater)
        case .unlockInterrupted?:
            return CommandFailure(
                "the passcode was right, but a lock arrived while it was being checked: still locked, not counted as a failed attempt; unlock again (widgetctl unlock)")
        case .passcodeRequired?:
            return CommandFailure(
                "a passcode is set: give the current one (widgetctl passcode change or passcode remove)")
        case .wiped?:
            return CommandFailure("the device was wiped: every timeline is gone (restart widgetd to start afresh)")
        case .storageFailure?:
            return CommandFailure(
                "widgetd cannot use its state directory: \(string("reason")) (see its log: journalctl -u widgetd)")
        case .actionNotAvailable?:
            return CommandFailure(
                "no action \(string("action")) is shown on this surface now (widgetctl get WIDGET --surface S lists the actions)")
        case .providerUnavailable?:
            return CommandFailure(
                "provider \(string("provider")) is not running: nothing watches its actions (start it, or give its providers.d/ file Unit=)",
                exitCode: .unavailable)
        case nil:
            return varlinkServiceFailure(name: name, parameter: string("parameter"))
        }
    }

    /// The message for an `org.varlink.service` error, or any other name widgetd does not define.
    private static func varlinkServiceFailure(name: String, parameter: String) -> CommandFailure {
        switch name {
        case "org.varlink.service.MethodNotFound", "org.varlink.service.InterfaceNotFound",
            "org.varlink.service.MethodNotImplemented":
            CommandFailure("widgetd does not know this call (is widgetd older than widgetctl?)")
        case "org.varlink.service.InvalidParameter":
            CommandFailure("widgetd rejected the parameter '\(parameter)'")
        default:
            CommandFailure("widgetd failed: \(name)")
        }
    }

    /// The system's text for an errno, e.g. `Connection timed out`.
    private static func describe(_ errorNumber: Int32) -> String { String(cString: strerror(errorNumber)) }
}
