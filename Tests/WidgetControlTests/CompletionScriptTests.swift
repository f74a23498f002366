import ArgumentParser
import Foundation
import Testing
@testable import WidgetControl
import WidgetdCommand

/// The committed completion scripts are the ones the parsers generate, so they cannot drift.
@Suite struct CompletionScriptTests {
    /// completions/PROGRAM.SHELL is what `PROGRAM --generate-completion-script SHELL` prints
    /// (`make completions` writes them).
    @Test(arguments: ["widgetctl", "widgetd"], [CompletionShell.bash, .zsh, .fish])
    func committedCompletionScriptsAreTheGeneratedOnes(program: String, shell: CompletionShell) throws {
        let file = "completions/\(program).\(shell.rawValue)"
        let committed = try String(contentsOf: CompletionAndManualTests.root.appendingPathComponent(file), encoding: .utf8)
        let script = program == "widgetd" ? Widgetd.completionScript(for: shell) : Widgetctl.completionScript(for: shell)
        // Both programs print the script with one final newline, as the file holds it.
        #expect(committed == script + "\n", "stale \(file): run make completions")
    }
}

/// The `---completion` requests of fish 3, which cannot give the cursor's offset.
@Suite struct CompletionRequestTests {
    @Test func fish3RequestsGetTheCursorAtTheEndOfTheWord() {
        let fish3 = ["---completion", "get", "--", "positional@0", "2", "widgetctl", "get", "com.ex"]
        #expect(CompletionRequest.normalized(fish3)
            == ["---completion", "get", "--", "positional@0", "2", "6", "widgetctl", "get", "com.ex"])
    }

    @Test(arguments: [
        ["---completion", "get", "--", "positional@0", "2", "6", "widgetctl", "get", "com.ex"],
        ["get", "--", "positional@0", "2", "widgetctl"],
        ["---completion", "--", "positional@0"],
    ])
    func everyOtherLineIsLeftAsItIs(arguments: [String]) {
        #expect(CompletionRequest.normalized(arguments) == arguments)
    }
}
