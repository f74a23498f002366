extension Widgetctl {
    /// `widgetctl lock`: locks at once; class-A keys go after the grace period.
    struct Lock: Command {
        static let configuration = CommandConfiguration(
            name: "lock", abstract: "Lock the device.", usage: "[--json]",
            options: [CommandConfiguration.jsonOption])

        init(_ arguments: ParsedArguments) throws(UsageError) {
            _ = try arguments.positionals(named: [], minimum: 0, maximum: 0)
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call("io.widgetd.Device.Lock")
            if context.json { return context.printJSON(reply.parameters) }
            context.print("Locked.")
        }
    }
}
