import Foundation
import Testing
import TestSupport
@testable import WidgetControl

/// The bash completion and the manual page list what the CLI actually has.
@Suite struct CompletionAndManualTests {
    /// The repository root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// What bash completes for `words`, the last being the word under the cursor.
    static func complete(_ words: [String]) throws -> [String] {
        let script = root.appendingPathComponent("completions/widgetctl.bash").path
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let result = try ChildProcess.run("/bin/bash", [
            "--norc", "-c",
            "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _widgetctl; printf '%s\\n' \"${COMPREPLY[@]}\"",
        ])
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test func completionOffersEveryCommand() throws {
        let names = Widgetctl.commands.map { $0.configuration.name }
        #expect(try Self.complete(["widgetctl", ""]).sorted() == (names + ["help"]).sorted())
    }

    @Test(arguments: Widgetctl.commands.map { $0.configuration.name })
    func completionOffersEachCommandsOptions(name: String) throws {
        let type = try #require(Widgetctl.commands.first { $0.configuration.name == name })
        let options = type.configuration.options.map(\.name) + ["--help"]
        #expect(try Self.complete(["widgetctl", name, "--"]).sorted() == options.sorted())
    }

    @Test func completionOffersSurfaces() throws {
        #expect(try Self.complete(["widgetctl", "get", "a/b", "--surface", ""])
            == ["homeScreen", "lockScreen", "alwaysOn", "remote"])
    }

    @Test(arguments: ["widgetctl.1", "widgetd.8", "widgetd.conf.5"])
    func manualPagesExist(name: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("man/\(name)"), encoding: .utf8)
        #expect(text.hasPrefix(".TH "))
    }

    @Test func manualDescribesEveryCommandAndExitCode() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("man/widgetctl.1"), encoding: .utf8)
        // Each command heads a tagged paragraph: `.B name`, `.BR name …` or `.BI name …` after `.TP`.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let headings = zip(lines, lines.dropFirst()).filter { $0.0 == ".TP" }.map { $0.1.split(separator: " ") }
        for command in Widgetctl.commands {
            let name = command.configuration.name
            #expect(headings.contains { $0.count >= 2 && [".B", ".BR", ".BI"].contains($0[0]) && $0[1] == name }, "\(name)")
        }
        for code in ExitCode.allCases {
            #expect(text.contains(".B \(code.rawValue)\n"), "exit code \(code.rawValue)")
        }
    }
}
