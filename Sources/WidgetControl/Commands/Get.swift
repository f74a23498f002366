import ArgumentParser
import WidgetdWire

extension Widgetctl {
    /// `widgetctl get WIDGET [--surface S]`: what a host would show.
    struct Get: WidgetctlCommand {
        static let configuration = CommandConfiguration(abstract: "Preview a widget as a host would show it.")

        @OptionGroup var target: PresentationTarget
        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call(.getPresentation, target.parameters)
            if context.json { return context.printJSON(reply.parameters) }
            let presentation = try context.decode(PresentationReply.self, from: reply).presentation
            context.standardOutput.write(PreviewRenderer(color: context.color).render(presentation))
        }
    }
}
