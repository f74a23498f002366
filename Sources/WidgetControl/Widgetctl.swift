import ArgumentParser

/// The root command: its help, version, global options and the tree of subcommands.
///
/// It runs nothing itself: named alone it is a usage error (``WidgetctlGroup``).
struct Widgetctl: WidgetctlGroup {
    /// What `--version` prints.
    static let version = "widgetctl 0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "widgetctl",
        abstract: "Control widgetd, the encrypted widget timeline store.",
        discussion: """
            Exit status: 0 success, 1 failure, 64 usage error, 65 wrong passcode, 66
            protected data unavailable (unlock first), 69 widgetd not reachable, 75 try
            again later (too many failed attempts), 77 permission denied. With --json, a
            failure also prints {"error": NAME, "parameters": {...}} on standard output.
            """,
        version: version,
        groupedSubcommands: [
            CommandGroup(
                name: "Device",
                subcommands: [Status.self, Unlock.self, Lock.self, Passcode.self, Settings.self, Wipe.self, Monitor.self]),
            CommandGroup(name: "Provider", subcommands: [Put.self, Append.self, Timeline.self, Delete.self, Providers.self, Actions.self]),
            CommandGroup(name: "Host", subcommands: [List.self, Get.self, Watch.self, Reload.self, Act.self]),
            CommandGroup(name: "Varlink", subcommands: [Introspect.self, Call.self]),
        ])

    static let commandPath = "widgetctl"

    @OptionGroup var global: GlobalOptions
}
