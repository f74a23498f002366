import Foundation
import Testing
@testable import WidgetDaemon

/// `ConfigurationTable` is the one list of keys: widgetd.conf(5) and the sample
/// `config/widgetd.conf` say what it says.
@Suite struct ConfigurationTableTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every key of `widgetd.conf` and of a `[Provider]` section, as `Section.Name`.
    private static var tableKeys: [String] {
        ConfigurationTable.keys.map { "\($0.section).\($0.name)" }
            + ConfigurationTable.providerKeys.map { "\($0.section).\($0.name)" }
    }

    /// The shown default of every key, by `Section.Name`.
    private static var tableDefaults: [String: String?] {
        Dictionary(uniqueKeysWithValues:
            ConfigurationTable.keys.map { ("\($0.section).\($0.name)", $0.shownDefault) }
            + ConfigurationTable.providerKeys.map { ("\($0.section).\($0.name)", $0.shownDefault) })
    }

    @Test func theTableHasOneRowPerKeyEachInAKnownSectionWithADocOfOneLine() {
        #expect(Set(Self.tableKeys).count == Self.tableKeys.count)
        for key in ConfigurationTable.keys {
            #expect(ConfigurationTable.sections.contains(key.section), "\(key.name)")
        }
        for key in ConfigurationTable.providerKeys { #expect(key.section == "Provider", "\(key.name)") }
        let docs = ConfigurationTable.keys.map(\.doc) + ConfigurationTable.providerKeys.map(\.doc)
        for doc in docs { #expect(!doc.isEmpty && !doc.contains("\n") && doc.hasSuffix("."), "\(doc)") }
    }

    @Test func theManualListsExactlyTheKeysOfTheTableUnderTheirSections() throws {
        let manual = try ConfigurationManual(contentsOf: Self.root.appendingPathComponent("man/widgetd.conf.5"))
        let listed = manual.entries.map(\.key)
        #expect(Set(Self.tableKeys).subtracting(listed).sorted() == [], "keys of the table the manual does not list")
        #expect(Set(listed).subtracting(Self.tableKeys).sorted() == [], "keys the manual lists that the table has not")
        #expect(listed == Self.tableKeys, "the manual's order is the table's")
    }

    @Test func theManualShowsTheDefaultTheTableShows() throws {
        let manual = try ConfigurationManual(contentsOf: Self.root.appendingPathComponent("man/widgetd.conf.5"))
        for entry in manual.entries {
            guard let shown = Self.tableDefaults[entry.key] else { continue }
            #expect(entry.shownDefault(matching: shown), "\(entry.key): \(entry.text)")
        }
    }

    /// What the table shows as a key's default is, written as a value, that default.
    @Test func eachShownDefaultReadsAsTheDefault() throws {
        let parser = ConfigurationParser(resolver: NoAccounts())
        for key in ConfigurationTable.keys {
            guard let shown = key.shownDefault else { continue }
            let text = "[\(key.section)]\n\(key.name)=\(shown)\n"
            #expect(try parser.parse(main: ConfigurationSource(path: "widgetd.conf", text: text)) == Configuration(), "\(text)")
        }
    }

    /// The sample shows every key of its section, commented out, with a value meaning
    /// its default: uncommented, it is the defaults without a warning.
    @Test func theSampleConfigurationShowsEveryKeyWithItsDefault() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("config/widgetd.conf"), encoding: .utf8)
        var shown: [String] = []
        var section = ""
        var uncommented: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("[") { section = String(line.dropFirst().dropLast()) }
            if line.hasPrefix("#"), let equals = line.firstIndex(of: "="),
               line.dropFirst().prefix(while: { $0.isLetter || $0.isNumber }).count == line.distance(
                   from: line.index(after: line.startIndex), to: equals)
            {
                shown.append("\(section).\(line.dropFirst().prefix { $0 != "=" })")
                uncommented.append(String(line.dropFirst()))
            } else {
                uncommented.append(line)
            }
        }
        let keys = ConfigurationTable.keys.map { "\($0.section).\($0.name)" }
        #expect(Set(keys).subtracting(shown).sorted() == [], "keys of the table the sample does not show")
        #expect(Set(shown).subtracting(keys).sorted() == [], "keys the sample shows that the table has not")
        #expect(shown == keys, "the sample's order is the table's")
        let parser = ConfigurationParser(resolver: NoAccounts())
        let configuration = try parser.parse(
            main: ConfigurationSource(path: "widgetd.conf", text: uncommented.joined(separator: "\n")))
        #expect(configuration == Configuration())
    }
}

/// No account exists: the defaults name none.
private struct NoAccounts: AccountResolver {
    func userID(named name: String) -> UInt32? { nil }
    func groupID(named name: String) -> UInt32? { nil }
}

/// The key entries of widgetd.conf(5): each `.TP` of a `[Section] SECTION` or of
/// PROVIDERS (the `[Provider]` keys), with its text as printed.
private struct ConfigurationManual {
    struct Entry {
        /// `Section.Name`.
        let key: String
        /// The entry's paragraphs as printed, on one line.
        let text: String

        /// Whether the entry's "Default:" shows `shown` (a key without one shows none).
        func shownDefault(matching shown: String?) -> Bool {
            guard let range = text.range(of: "Default:") else { return shown == nil }
            guard let shown else { return false }
            let rest = text[range.upperBound...].drop { $0 == " " }
            guard rest.hasPrefix(shown) else { return false }
            let next = rest.dropFirst(shown.count).first
            return next == nil || !(next!.isLetter || next!.isNumber)
        }
    }

    let entries: [Entry]

    init(contentsOf url: URL) throws {
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        var entries: [Entry] = []
        var section: String?
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.hasPrefix(".SH ") {
                let title = line.dropFirst(4)
                section = title == "PROVIDERS" ? "Provider"
                    : title.hasPrefix("[") && title.hasSuffix("] SECTION") ? String(title.dropFirst().prefix { $0 != "]" })
                    : nil
                continue
            }
            guard let section, line == ".TP", index < lines.count else { continue }
            let heading = Self.printed(lines[index])
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index] != ".TP", !lines[index].hasPrefix(".SH ") {
                body.append(Self.printed(lines[index]))
                index += 1
            }
            entries.append(Entry(key: "\(section).\(heading.prefix { $0 != "=" })", text: body.joined(separator: " ")))
        }
        self.entries = entries
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
        return [".B", ".I"].contains(macro) ? words.joined(separator: " ") : words.joined()
    }
}
