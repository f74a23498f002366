import ArgumentParser
import WidgetdWire

extension Widgetctl {
    /// `widgetctl lock`: locks at once; class-A keys go after the grace period.
    struct Lock: WidgetctlCommand {
        static let configuration = CommandConfiguration(abstract: "Lock the device.")

        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call(.lock)
            if context.json { return context.printJSON(reply) }
            context.print("Locked.")
        }
    }
}
