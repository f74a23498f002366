import ArgumentParser

extension Widgetctl {
    /// `widgetctl list`: every stored widget.
    struct List: WidgetctlCommand {
        static let configuration = CommandConfiguration(abstract: "List stored widgets: family, class, generation.")

        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call("io.widgetd.Host.ListWidgets")
            if context.json { return context.printJSON(reply.parameters) }
            let widgets = try context.decode(Wire.WidgetList.self, from: reply).widgets
            guard !widgets.isEmpty else { return context.print("No widgets stored.") }
            let rows = [["WIDGET", "FAMILY", "CLASS", "GENERATION"]] + widgets.sorted { $0.widget < $1.widget }.map {
                [TerminalText.sanitize($0.widget), TerminalText.sanitize($0.family ?? "-"), $0.class, String($0.generation)]
            }
            let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = row.enumerated().map { index, cell in
                    index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
                }
                context.print(cells.joined(separator: "  "))
            }
        }
    }
}
