import Foundation
import Testing
import TestSupport
@testable import WidgetControl
import WidgetdCommand

/// The completion scripts are the parser's, and work in bash, zsh and fish; the manual
/// page names every command and option the parser has.
@Suite struct CompletionAndManualTests {
    /// The repository root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let shells: [(name: String, path: String)] = [("bash", "/bin/bash"), ("zsh", "/usr/bin/zsh"), ("fish", "/usr/bin/fish")]

    /// Runs `shell` on `script` with the built widgetctl first on PATH and `socket` as
    /// WIDGETD_SOCKET; returns its standard output's lines.
    static func run(_ shell: String, _ arguments: [String], socket: String) throws -> [String] {
        let binaries = try BinaryTests.binary().deletingLastPathComponent().path
        let result = try ChildProcess.run(shell, arguments, environment: [
            "PATH": binaries + ":/usr/bin:/bin", "WIDGETD_SOCKET": socket, "HOME": try TemporaryDirectory.make(),
            "TERM": "dumb",
        ])
        // A pseudo-terminal ends lines with CR LF.
        return result.output.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
    }

    /// What `shell` completes after `line` (which ends where the cursor is), candidates only.
    static func complete(_ shell: String, _ line: String, socket: String) throws -> [String] {
        let script = root.appendingPathComponent("completions/widgetctl.\(shell)").path
        switch shell {
        case "bash":
            // As bash calls it: COMP_* set, and the command, the current and the
            // previous word as arguments.
            var words = line.split(separator: " ", omittingEmptySubsequences: true).map { "'\($0)'" }
            if line.hasSuffix(" ") { words.append("''") }
            let program = "source '\(script)'; COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}; "
                + "COMP_WORDS=(\(words.joined(separator: " "))); COMP_CWORD=\(words.count - 1); "
                + "_widgetctl widgetctl \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"; "
                + "printf '%s\\n' \"${COMPREPLY[@]}\""
            return try run("/bin/bash", ["--norc", "--noprofile", "-c", program], socket: socket)
        case "zsh":
            // zsh quotes what it would insert (`forecast\#lock-1`): compare the words.
            let harness = root.appendingPathComponent("tests/completion/zsh-complete").path
            return try run("/usr/bin/zsh", ["-f", harness, script, line], socket: socket)
                .map { $0.replacingOccurrences(of: "\\", with: "") }
        default:
            // fish 3 answers `commandline` only when interactive, so it runs in a
            // pseudo-terminal (script(1)); each line is "candidate<TAB>description".
            let program = try TemporaryDirectory.make() + "/complete.fish"
            try "source '\(script)'\ncomplete -C '\(line)'\n".write(toFile: program, atomically: true, encoding: .utf8)
            return try run("/usr/bin/script", ["-qec", "fish --no-config -i \(program)", "/dev/null"], socket: socket)
                .map { String($0.split(separator: "\t", maxSplits: 1).first ?? "") }
                .filter { !$0.isEmpty }
        }
    }

    /// Whether `shell` is installed (CI installs all three: .ci/run).
    static func installed(_ shell: String) -> Bool {
        shells.first { $0.name == shell }.map { FileManager.default.isExecutableFile(atPath: $0.path) } ?? false
    }

    /// In `shell` the generated script completes a command, an option, a surface, and a
    /// widget id asked of the running daemon.
    static func checkCompletion(in shell: String) throws {
        let server = try FakeVarlinkServer { request in
            if request.contains("io.widgetd.Host.GetPresentation") { return [reply(RolesAndActionsTests.media)] }
            return request.contains("io.widgetd.Host.ListWidgets") ? [reply(Fixtures.widgets)] : [errorReply("x")]
        }
        #expect(try complete(shell, "widgetctl pass", socket: server.path) == ["passcode"])
        #expect(try complete(shell, "widgetctl unlock --pass", socket: server.path) == ["--passcode-stdin"])
        let widgets = try complete(shell, "widgetctl get com.example.w", socket: server.path)
        #expect(widgets == ["com.example.weather/forecast#lock-1"], "\(widgets)")
        #expect(try complete(shell, "widgetctl get a/b --surface lock", socket: server.path) == ["lock-screen"])
        // An action id, of what the surface named shows now.
        #expect(try complete(shell, "widgetctl act a/b --surface lock-screen o", socket: server.path) == ["open"])
        #expect(server.requests.contains { $0.contains("GetPresentation") && $0.contains(#""surface":"lockScreen""#) })
    }

    @Test(.enabled(if: installed("bash"), "bash is not installed: apt-get install bash"))
    func bashCompletesCommandsOptionsAndWidgetIDs() throws { try Self.checkCompletion(in: "bash") }

    @Test(.enabled(if: installed("zsh"), "zsh is not installed: apt-get install zsh"))
    func zshCompletesCommandsOptionsAndWidgetIDs() throws { try Self.checkCompletion(in: "zsh") }

    @Test(.enabled(if: installed("fish"), "fish is not installed: apt-get install fish"))
    func fishCompletesCommandsOptionsAndWidgetIDs() throws { try Self.checkCompletion(in: "fish") }

    @Test(arguments: ["widgetctl.1", "widgetd.8", "widgetd.conf.5"])
    func manualPagesExist(name: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("man/\(name)"), encoding: .utf8)
        #expect(text.hasPrefix(".TH "))
    }

    /// Every command the parser has heads a tagged paragraph of widgetctl(1), every
    /// option the parser accepts is described there, and so is every exit code.
    @Test func manualNamesEveryCommandOptionAndExitCode() throws {
        let manual = try ManualPage(contentsOf: Self.root.appendingPathComponent("man/widgetctl.1"))
        for (path, type) in Widgetctl.runnableCommands {
            let name = path.joined(separator: " ")
            #expect(manual.headings.contains { $0 == name || $0.hasPrefix(name + " ") }, "no heading for \(name)")
            for option in ParserIntrospection.longOptions(of: type) {
                #expect(manual.text.contains(option), "\(name): \(option) is not in widgetctl(1)")
            }
        }
        for code in ExitCode.allCases {
            #expect(manual.source.contains(".B \(code.rawValue)\n"), "exit code \(code.rawValue)")
        }
    }

    /// widgetd(8) describes every option of widgetd's parser.
    @Test func widgetdManualNamesEveryOption() throws {
        let manual = try ManualPage(contentsOf: Self.root.appendingPathComponent("man/widgetd.8"))
        let options = ParserIntrospection.longOptions(of: Widgetd.self)
        #expect(options.contains("--check-config"))
        for option in options {
            #expect(manual.headings.contains { $0.contains(option) }, "\(option) has no paragraph in widgetd(8)")
        }
    }
}
