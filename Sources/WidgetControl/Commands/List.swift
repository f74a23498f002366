import ArgumentParser
import WidgetModel
import WidgetdWire

extension Widgetctl {
    /// `widgetctl list [--provider P]`: every stored widget, fetched page by page.
    struct List: WidgetctlCommand {
        static let configuration = CommandConfiguration(abstract: "List stored widgets: family, class, generation.")

        /// Widgets asked for per call: a reply stays small however many are stored.
        static let pageSize = 500

        @Option(help: "Only this provider's widgets.")
        var provider: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let provider, !WidgetIDCheck.isProvider(provider) { throw ValidationError("not a provider id: '\(provider)'") }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let (widgets, values) = try fetchAll(context)
            if context.json { return context.printJSON(["widgets": .array(values)]) }
            guard !widgets.isEmpty else { return context.print("No widgets stored.") }
            // The daemon sends id order; sorted again for one that predates paging.
            let rows = [["WIDGET", "FAMILY", "CLASS", "GENERATION"]] + widgets.sorted { $0.widget < $1.widget }.map {
                [TerminalText.sanitize($0.widget), TerminalText.sanitize($0.family ?? "-"), $0.class.rawValue, String($0.generation)]
            }
            let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = row.enumerated().map { index, cell in
                    index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
                }
                context.print(cells.joined(separator: "  "))
            }
        }

        /// Every page, in widget id order: the decoded widgets and their values as sent.
        private func fetchAll(_ context: CommandContext) throws(CommandFailure) -> ([WidgetInfo], [JSONValue]) {
            var widgets: [WidgetInfo] = []
            var values: [JSONValue] = []
            var after: String?
            repeat {
                var parameters: [String: JSONValue] = ["limit": .number(JSONNumber(Self.pageSize))]
                if let provider { parameters["provider"] = .string(provider) }
                if let after { parameters["after"] = .string(after) }
                let reply = try context.call(.listWidgets, parameters)
                let page = try context.decode(ListWidgetsReply.self, from: reply)
                widgets += page.widgets
                if case .array(let items)? = reply.parameters["widgets"] { values += items }
                // A daemon that ignores paging sends everything and no `next`: one call then.
                // Otherwise each page must move on (a page of widgets, and a `next` past the
                // last one followed, as ids come in order): a `next` that does not would be
                // followed for ever.
                if let next = page.next, page.widgets.isEmpty || after.map({ next <= $0 }) == true {
                    throw DaemonErrorMessage.failure(
                        for: .malformedReply("ListWidgets' next does not move past \(after ?? "the first page")"),
                        socketPath: context.socketPath)
                }
                after = page.next
            } while after != nil
            return (widgets, values)
        }
    }
}
