import Foundation
import Testing
@testable import WidgetControl

@Suite struct UsageErrorTests {
    /// Each wrong command line, and the first line the parser prints on standard error.
    static let cases: [([String], String)] = [
        ([], "Error: missing subcommand"),
        (["frobnicate"], "Error: unknown command 'frobnicate'"),
        (["--bogus", "status"], "Error: Unknown option '--bogus'"),
        (["--socket"], "Error: Missing value for '--socket <path>'"),
        (["status", "extra"], "Error: Unexpected argument 'extra'"),
        (["status", "--yes"], "Error: Unknown option '--yes'"),
        (["get"], "Error: Missing expected argument '<widget>'"),
        (["get", "nope"], "Error: widget id must be PROVIDER/KIND[#INSTANCE]: 'nope'"),
        (["get", "a/b", "--surface", "ceiling"], "Error: The value 'ceiling' is invalid for '--surface <surface>'. "
            + "Please provide one of 'home-screen', 'lock-screen', 'always-on' or 'remote'."),
        (["get", "a/b", "--surface"], "Error: Missing value for '--surface <surface>'"),
        (["put", "a/b"], "Error: Missing expected argument '<file>'"),
        (["put", "a/../b", "-"], "Error: widget id must not contain '..': 'a/../b'"),
        (["wipe", "--yes=1"], "Error: The option '--yes' does not take any value, but '1' was specified."),
        (["passcode"], "Error: missing subcommand"),
        (["passcode", "reset"], "Error: Unexpected argument 'reset'"),
        (["settings", "get"], "Error: Unexpected argument 'get'"),
        (["settings", "set"], "Error: missing subcommand"),
        (["settings", "set", "lock-screen-widgets", "maybe"], "Error: The value 'maybe' is invalid for '<value>'. Please provide one of 'on', 'off' or 'selected'."),
        (["settings", "set", "hide-sensitive-complications", "all", "a/b"],
         "Error: widgets are given only with 'selected', not after 'all': 'a/b'"),
        (["settings", "set", "hide-sensitive-complications", "selected", "bad"],
         "Error: widget id must be PROVIDER/KIND[#INSTANCE]: 'bad'"),
        (["settings", "set", "volume", "11"],
         "Error: unknown setting 'volume' (settings: lock-screen-widgets, hide-sensitive-complications)"),
        (["settings", "set", "lockscreen-widgets", "off"], "Error: unknown setting 'lockscreen-widgets'; did you mean 'lock-screen-widgets'?"),
        (["reload", "a/b#c"], "Error: reload takes PROVIDER[/KIND], without #INSTANCE: 'a/b#c'"),
    ]

    @Test(arguments: cases)
    func usageErrorsExit64OnStandardError(arguments: [String], firstLine: String) {
        let result = widgetctl(arguments, socket: "/nonexistent/widgetd.sock")
        #expect(result.exitCode == 64)
        #expect(result.standardOutput == "")
        #expect(result.standardError.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.standardError.hasSuffix("--help' for more information.\n"))
    }

    @Test func usageErrorNamesTheCommandsUsage() {
        #expect(widgetctl(["get"]).standardError == """
            Error: Missing expected argument '<widget>'
            Help:  <widget>  The widget id, PROVIDER/KIND[#INSTANCE].
            Usage: widgetctl get <widget> [--surface <surface>] [--socket <path>] [--json]
              See 'widgetctl get --help' for more information.

            """)
    }

    @Test func aGroupAloneNamesItsOwnUsage() {
        #expect(widgetctl(["passcode"]).standardError == """
            Error: missing subcommand
            Usage: widgetctl passcode [--socket <path>] [--json] <subcommand>
              See 'widgetctl passcode --help' for more information.

            """)
    }

    @Test func usageErrorsNeverReachTheDaemon() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        _ = widgetctl(["get", "a/b", "--surface", "ceiling"], socket: server.path)
        _ = widgetctl(["unlock", "secret"], socket: server.path)
        #expect(server.requests.isEmpty)
    }

    /// `--socket` and `--json` are the root's and every subcommand's: before the
    /// subcommand's name, after it, or between its arguments.
    @Test(arguments: [
        ["--json", "--socket", "SOCKET", "delete", "a/b"],
        ["delete", "--json", "a/b", "--socket", "SOCKET"],
        ["delete", "a/b", "--socket=SOCKET", "--json"],
        ["--socket", "SOCKET", "delete", "a/b", "--json"],
    ])
    func globalOptionsAreAcceptedAnywhere(arguments: [String]) throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(arguments.map { $0.replacingOccurrences(of: "SOCKET", with: server.path) })
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(result.standardOutput == "{}\n")
        #expect(server.requests == [#"{"method":"io.widgetd.Provider.DeleteTimeline","parameters":{"widget":"a/b"}}"#])
    }

    /// With --json, a usage error is an object on standard output too.
    @Test func usageErrorWithJSONIsAnObjectToo() throws {
        let result = widgetctl(["get", "nope", "--json"])
        #expect(result.exitCode == 64)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["error"] as? String == "widgetctl.UsageError")
        #expect((object["parameters"] as? [String: Any])?["message"] as? String
            == "widget id must be PROVIDER/KIND[#INSTANCE]: 'nope'")
    }
}
