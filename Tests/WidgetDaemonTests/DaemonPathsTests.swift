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

    /// Under `su`, ssh without logind or in a container there is no `XDG_RUNTIME_DIR`:
    /// a daemon that must make its own socket says so and what to give, instead of
    /// failing to create a directory in `/run/user/UID` that belongs to nobody.
    @Test func aUserWithoutRuntimeDirectoryIsToldToGiveASocket() {
        #expect(throws: DaemonPaths.Unresolvable.noRuntimeDirectory) {
            try DaemonPaths.defaults(uid: 1000, environment: ["HOME": "/home/ada"], needsRuntimeDirectory: true)
        }
        let text = DaemonPaths.Unresolvable.noRuntimeDirectory.description
        #expect(text.contains("XDG_RUNTIME_DIR is not set") && text.contains("--socket"))
    }

    @Test func aGivenOrPassedSocketNeedsNoRuntimeDirectory() throws {
        let paths = try DaemonPaths.defaults(uid: 1000, environment: ["HOME": "/home/ada"], needsRuntimeDirectory: false)
        #expect(paths.stateDirectory == "/home/ada/.local/state/widgetd")
    }
}
