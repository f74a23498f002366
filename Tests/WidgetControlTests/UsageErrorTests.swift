import Testing
@testable import WidgetControl

@Suite struct UsageErrorTests {
    /// Each wrong command line, and the first line of what it prints on standard error.
    static let cases: [([String], String)] = [
        ([], "Error: missing command"),
        (["frobnicate"], "Error: unknown command 'frobnicate'"),
        (["--bogus", "status"], "Error: unknown option '--bogus'"),
        (["--socket"], "Error: missing value for '--socket <path>'"),
        (["status", "extra"], "Error: unexpected argument 'extra'"),
        (["status", "--yes"], "Error: unknown option '--yes'"),
        (["get"], "Error: missing argument <widget>"),
        (["get", "nope"], "Error: widget id must be PROVIDER/KIND[#INSTANCE]: 'nope'"),
        (["get", "a/b", "--surface", "ceiling"], "Error: unknown surface 'ceiling' (expected homeScreen, lockScreen, alwaysOn, remote)"),
        (["get", "a/b", "--surface"], "Error: missing value for '--surface <surface>'"),
        (["put", "a/b"], "Error: missing argument <file>"),
        (["put", "a/../b", "-"], "Error: widget id must not contain '..': 'a/../b'"),
        (["wipe", "--yes=1"], "Error: option '--yes' takes no value"),
        (["passcode"], "Error: missing argument <action>"),
        (["passcode", "reset"], "Error: unknown action 'reset' (expected set, change or remove)"),
        (["settings", "get"], "Error: unexpected argument 'get' (expected 'set')"),
        (["settings", "set", "lock-screen-widgets", "maybe"], "Error: lock-screen-widgets is on or off, not 'maybe'"),
        (["settings", "set", "hide-sensitive-complications", "all", "a/b"],
         "Error: widgets are given only with 'selected', not after 'all': 'a/b'"),
        (["settings", "set", "hide-sensitive-complications", "selected", "bad"],
         "Error: widget id must be PROVIDER/KIND[#INSTANCE]: 'bad'"),
        (["settings", "set", "volume", "11"],
         "Error: unknown setting 'volume' (expected lock-screen-widgets or hide-sensitive-complications)"),
        (["reload", "a/b#c"], "Error: reload takes PROVIDER[/KIND], without #INSTANCE: 'a/b#c'"),
        (["help", "frobnicate"], "Error: unknown command 'frobnicate'"),
    ]

    @Test(arguments: cases)
    func usageErrorsExit64OnStandardError(arguments: [String], firstLine: String) {
        let result = widgetctl(arguments, socket: "/nonexistent/widgetd.sock")
        #expect(result.exitCode == 64)
        #expect(result.standardOutput == "")
        #expect(result.standardError.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.standardError.contains("--help' for more information.\n"))
    }

    @Test func usageErrorNamesTheCommandsUsage() {
        #expect(widgetctl(["get"]).standardError == """
            Error: missing argument <widget>
            Usage: widgetctl get <widget> [--surface <surface>] [--json]
              See 'widgetctl get --help' for more information.

            """)
    }

    @Test func usageErrorsNeverReachTheDaemon() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        _ = widgetctl(["get", "a/b", "--surface", "ceiling"], socket: server.path)
        _ = widgetctl(["unlock", "secret"], socket: server.path)
        #expect(server.requests.isEmpty)
    }
}
