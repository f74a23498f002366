import ArgumentParser
import Foundation

/// A troff manual page, read just enough to find what it documents.
struct ManualPage {
    /// The source text.
    let source: String
    /// The text with the font escapes and `\-` resolved, for finding option names.
    let text: String
    /// The first line after each `.TP`, as printed (`passcode set [--passcode-stdin]`).
    let headings: [String]

    init(contentsOf url: URL) throws {
        source = try String(contentsOf: url, encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        text = lines.map(Self.printed).joined(separator: "\n")
        headings = zip(lines, lines.dropFirst()).filter { $0.0 == ".TP" }.map { Self.printed($0.1) }
    }

    /// A line as man prints it: `.B`/`.I` join their words with spaces, the alternating
    /// macros (`.BR`, `.BI`, `.RB`, …) without; escapes become their characters.
    static func printed(_ line: String) -> String {
        let resolved = line.replacingOccurrences(of: "\\-", with: "-")
            .replacingOccurrences(of: "\\fB", with: "").replacingOccurrences(of: "\\fI", with: "")
            .replacingOccurrences(of: "\\fR", with: "").replacingOccurrences(of: "\\fP", with: "")
        guard resolved.hasPrefix(".") else { return resolved }
        let macro = resolved.prefix { $0 != " " }
        var words: [String] = []
        var word = "", quoted = false, inWord = false
        for character in resolved.dropFirst(macro.count) {
            if character == "\"" { quoted.toggle(); inWord = true; continue }
            if character == " " && !quoted {
                if inWord { words.append(word); word = ""; inWord = false }
                continue
            }
            word.append(character)
            inWord = true
        }
        if inWord { words.append(word) }
        let joined = [".B", ".I"].contains(macro) ? words.joined(separator: " ") : words.joined()
        return joined.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

/// What the parser itself says a command accepts (its help dump, as `--experimental-dump-help`).
enum ParserIntrospection {
    /// The `--long` names of the options and flags `type` shows in its help.
    static func longOptions(of type: any ParsableCommand.Type) -> [String] {
        guard let dump = try? JSONSerialization.jsonObject(with: Data(type._dumpHelp().utf8)) as? [String: Any],
              let command = dump["command"] as? [String: Any],
              let arguments = command["arguments"] as? [[String: Any]]
        else { return [] }
        return arguments.filter { $0["shouldDisplay"] as? Bool ?? true }.flatMap { argument in
            (argument["names"] as? [[String: Any]] ?? []).compactMap { name in
                name["kind"] as? String == "long" ? "--" + (name["name"] as? String ?? "") : nil
            }
        }
    }
}
