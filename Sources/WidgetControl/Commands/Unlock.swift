import ArgumentParser
import Varlink
import WidgetdClient
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl unlock`: releases the protected classes' keys.
    struct Unlock: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unlock the device with its passcode.",
            discussion: """
                The passcode is read from the terminal without echo, or from standard input \
                with --passcode-stdin; never from the command line. Before it is asked for, \
                widgetctl checks that this user may unlock (else exit 77) and that no wait \
                after failed attempts is running (else exit 75).
                """)

        @OptionGroup var passcode: PasscodeOptions
        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            // One connection for the checks and the unlock: nobody types a passcode for a
            // daemon that is not there, that would refuse them, or that would not try it.
            let client = try context.connect()
            let status = try context.call(on: client, .getStatus)
            // The role first: a user who may not unlock is told so (exit 77), not how long
            // to wait for an attempt they could never make.
            try Self.checkRole(on: client, context)
            if case .number(let wait)? = status.parameters["retryAfter"], wait.doubleValue > 0 {
                throw DaemonErrorMessage.failure(
                    forErrorReply: WidgetdErrorName.tryAgainLater.fullName, parameters: ["retryAfter": .number(wait)])
            }
            let secret = try passcode.reader(context).read(prompt: "Passcode: ")
            let reply: VarlinkReplyMessage
            do {
                reply = try context.call(on: client, .unlock, secrets: [("passcode", secret)])
                secret.wipe()
            } catch {
                secret.wipe()
                throw Self.notingRepeat(error, failedAttemptsBefore: status.parameters["failedAttempts"])
            }
            if context.json { return context.printJSON(reply) }
            context.print("Unlocked.")
        }

        /// A `WrongPasscode` whose count did not move: the same wrong passcode as the last
        /// failed attempt, which widgetd does not count again (DESIGN §3). Said in the
        /// message, since the number alone would read as an attempt that counted.
        static func notingRepeat(_ failure: CommandFailure, failedAttemptsBefore: JSONValue?) -> CommandFailure {
            guard failure.name == WidgetdErrorName.wrongPasscode.fullName,
                  case .number(let before)? = failedAttemptsBefore,
                  case .number(let after)? = failure.parameters["failedAttempts"],
                  before.doubleValue == after.doubleValue
            else { return failure }
            let attempts = Int(after.doubleValue)
            var message = "wrong passcode, the same as the last failed attempt: it does not count again (still \(attempts) failed attempt\(attempts == 1 ? "" : "s"))"
            if case .number(let wait)? = failure.parameters["retryAfter"], wait.doubleValue > 0 {
                message += "; try again in \(DurationText.format(seconds: wait.doubleValue))"
            }
            return CommandFailure(message, exitCode: failure.exitCode, name: failure.name, parameters: failure.parameters)
        }

        /// Asks whether this peer may unlock, without a passcode.
        ///
        /// widgetd checks the caller's role before it reads a call's parameters: `Unlock`
        /// without `passcode` is `PermissionDenied` for a peer without the unlock role and
        /// `InvalidParameter` for one with it, and counts no attempt either way.
        static func checkRole(on client: ClientSocket, _ context: CommandContext) throws(CommandFailure) {
            do {
                _ = try context.call(on: client, .unlock, [:])
            } catch where error.name == "org.varlink.service.InvalidParameter" {
                return
            }
            throw CommandFailure("widgetd unlocked without a passcode (is widgetd newer than widgetctl?)")
        }
    }
}
