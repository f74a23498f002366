import Testing
@testable import WidgetDaemon

@Suite struct DaemonPathsTests {
    @Test func rootUsesTheSystemPaths() throws {
        let paths = try DaemonPaths.defaults(uid: 0, environment: ["HOME": "/root", "XDG_RUNTIME_DIR": "/run/user/0"])
        #expect(paths == DaemonPaths(
            configurationFile: "/etc/widgetd/widgetd.conf", stateDirectory: "/var/lib/widgetd",
            socketPath: "/run/widgetd/widgetd.sock"))
    }

    @Test(arguments: [
        (["HOME": "/home/ada", "XDG_RUNTIME_DIR": "/run/user/1000"],
         DaemonPaths(configurationFile: "/home/ada/.config/widgetd/widgetd.conf",
                     stateDirectory: "/home/ada/.local/state/widgetd", socketPath: "/run/user/1000/widgetd/widgetd.sock")),
        (["HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/st", "XDG_RUNTIME_DIR": "/rt"],
         DaemonPaths(configurationFile: "/cfg/widgetd/widgetd.conf", stateDirectory: "/st/widgetd",
                     socketPath: "/rt/widgetd/widgetd.sock")),
        (["HOME": "/home/ada", "XDG_CONFIG_HOME": "relative", "XDG_RUNTIME_DIR": ""],
         DaemonPaths(configurationFile: "/home/ada/.config/widgetd/widgetd.conf",
                     stateDirectory: "/home/ada/.local/state/widgetd", socketPath: "/run/user/1000/widgetd/widgetd.sock")),
    ])
    func otherUsersUseTheXDGDirectories(environment: [String: String], expected: DaemonPaths) throws {
        #expect(try DaemonPaths.defaults(uid: 1000, environment: environment) == expected)
    }

    @Test func aUserWithoutHomeCannotHaveDefaults() {
        #expect(throws: DaemonPaths.Unresolvable.noHomeDirectory) {
            try DaemonPaths.defaults(uid: 1000, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        }
    }
}

@Suite struct DaemonCommandLineTests {
    @Test(arguments: [
        ([], DaemonCommandLine()),
        (["--config", "/c.conf", "--state-directory=/s", "--socket", "/x.sock"],
         { var c = DaemonCommandLine(); c.configurationFile = "/c.conf"; c.stateDirectory = "/s"; c.socketPath = "/x.sock"; return c }()),
        (["--help"], { var c = DaemonCommandLine(); c.action = .help; return c }()),
        (["-h", "--version"], { var c = DaemonCommandLine(); c.action = .help; return c }()),
        (["--version"], { var c = DaemonCommandLine(); c.action = .version; return c }()),
        (["--start-over"], { var c = DaemonCommandLine(); c.startOver = true; return c }()),
    ])
    func parsesValidCommandLines(arguments: [String], expected: DaemonCommandLine) throws {
        #expect(try DaemonCommandLine.parse(arguments) == expected)
    }

    @Test(arguments: [
        (["--frobnicate"], DaemonCommandLine.UsageError.unknownOption("--frobnicate")),
        (["--config"], .missingValue("--config")),
        (["--config", "--socket", "/x"], .missingValue("--config")),
        (["--socket="], .missingValue("--socket")),
        (["extra"], .unexpectedArgument("extra")),
        (["--socket", "/a", "--socket", "/b"], .repeatedOption("--socket")),
        (["--help=yes"], .unknownOption("--help=yes")),
        (["--start-over=yes"], .unknownOption("--start-over=yes")),
        (["--start-over", "--start-over"], .repeatedOption("--start-over")),
    ])
    func rejectsInvalidCommandLines(arguments: [String], error: DaemonCommandLine.UsageError) {
        #expect(throws: error) { try DaemonCommandLine.parse(arguments) }
    }

    @Test func helpShowsTheUsageAndEveryOption() {
        let help = DaemonCommandLine.helpText
        #expect(help.hasPrefix("USAGE: widgetd [--config FILE] [--state-directory DIR] [--socket PATH] [--start-over]\n"))
        for option in ["--config FILE", "--state-directory DIR", "--socket PATH", "--start-over", "-h, --help", "--version"] {
            #expect(help.contains(option))
        }
        #expect(DaemonCommandLine.usageExitCode == 64)
    }

    @Test func optionsOverrideTheDefaultPaths() throws {
        let line = try DaemonCommandLine.parse(["--socket", "/tmp/w.sock"])
        #expect(line.paths(defaults: .system) == DaemonPaths(
            configurationFile: "/etc/widgetd/widgetd.conf", stateDirectory: "/var/lib/widgetd",
            socketPath: "/tmp/w.sock"))
    }
}
