import ArgumentParser
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl providers`: the registered providers, as `systemctl list-units` lists units.
    struct Providers: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "List providers: class, owner, file, why disabled.",
            discussion: """
                An administrator sees every provider, and every providers.d/ file that \
                registers nothing because it is not valid, with the reason; a provider's \
                user sees its own providers. Anyone else is refused (exit 77).
                """)

        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call(.listProviders)
            if context.json { return context.printJSON(reply) }
            let list = try context.decode(ProviderListReply.self, from: reply)
            for line in Self.lines(list) { context.print(line) }
        }

        /// The table, then one line per disabled file and what to do about it.
        static func lines(_ list: ProviderListReply) -> [String] {
            var lines: [String] = []
            if list.providers.isEmpty {
                lines.append("No provider registered.")
            } else {
                let rows = [["PROVIDER", "CLASS", "USER", "GROUP", "APP", "FILE"]] + list.providers.map {
                    [
                        TerminalText.sanitize($0.id), $0.class.rawValue, $0.user.map(AccountName.user) ?? "-",
                        $0.group.map(AccountName.group) ?? "-", $0.app.map(TerminalText.sanitize) ?? "-",
                        TerminalText.sanitize($0.file),
                    ]
                }
                let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
                for row in rows {
                    let cells = row.enumerated().map { index, cell in
                        index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
                    }
                    lines.append(cells.joined(separator: "  "))
                }
            }
            let disabled = list.disabled ?? []
            if !disabled.isEmpty {
                lines.append("")
                lines.append("Disabled (these files register no provider):")
                for file in disabled {
                    let place = file.line.map { "\(file.file):\($0)" } ?? file.file
                    lines.append("  \(TerminalText.sanitize(place)): \(TerminalText.sanitize(file.reason))")
                }
                lines.append("Fix them, check with 'widgetd --check-config', then reload widgetd (systemctl reload widgetd, or SIGHUP).")
            }
            return lines
        }
    }
}
