import ArgumentParser
import WidgetdClient
import WidgetdWire

extension Widgetctl {
    /// `widgetctl wipe`: crypto-erases every timeline.
    struct Wipe: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase every timeline for good (destroys the keys).",
            discussion: "Without --yes, wipe asks you to type WIPE at the terminal.")

        @Flag(help: "Do not ask for confirmation.")
        var yes = false

        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            if !yes {
                guard context.standardInput.isTerminal else {
                    throw CommandFailure("wipe needs confirmation: run it at a terminal, or pass --yes", exitCode: .usage)
                }
                context.standardError.write("This erases every widget timeline for good. Type WIPE to confirm: ")
                let answer = ZeroingBuffer(capacity: 64)
                let answered = (try? context.standardInput.readLine(into: answer)) ?? false
                let expected = ZeroingBuffer(capacity: 4)
                expected.append(contentsOf: Array("WIPE".utf8))
                guard answered, answer.hasSameBytes(as: expected) else {
                    throw CommandFailure("wipe cancelled; nothing was erased")
                }
            }
            let reply = try context.call(.wipe, ["confirm": .string("WIPE")])
            if context.json { return context.printJSON(reply) }
            context.print("Wiped: every timeline is now unreadable.")
        }
    }
}
