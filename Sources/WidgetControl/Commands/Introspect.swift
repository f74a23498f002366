import ArgumentParser
import StrictJSON
import WidgetdClient
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl introspect [INTERFACE]`: what the daemon serves, through
    /// `org.varlink.service`, which every peer may call.
    struct Introspect: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the interfaces widgetd serves, or one's definition.",
            discussion: """
                Without an interface: the service's vendor, product, version, url and \
                interfaces (org.varlink.service.GetInfo). With one: its Varlink interface \
                definition (GetInterfaceDescription), e.g. widgetctl introspect io.widgetd.Device.
                """)

        @Argument(
            help: ArgumentHelp("An interface, e.g. io.widgetd.Host.", valueName: "interface"),
            completion: .list(["org.varlink.service"] + WidgetdInterface.allCases.map(\.name)))
        var interface: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let interface, interface.isEmpty || interface.contains(where: { $0 == " " || $0 == "/" }) {
                throw ValidationError("not an interface name: '\(interface)'")
            }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            if let interface {
                let reply = try context.call(
                    method: "org.varlink.service.GetInterfaceDescription", ["interface": .string(interface)])
                if context.json { return context.printJSON(reply) }
                guard case .string(let description)? = reply.parameters["description"] else {
                    throw CommandFailure("widgetd sent no interface description")
                }
                context.standardOutput.write(description.hasSuffix("\n") ? description : description + "\n")
                return
            }
            let reply = try context.call(method: "org.varlink.service.GetInfo")
            if context.json { return context.printJSON(reply) }
            func text(_ key: String) -> String {
                if case .string(let value)? = reply.parameters[key] { return TerminalText.sanitize(value) }
                return "-"
            }
            context.print("Vendor:     \(text("vendor"))")
            context.print("Product:    \(text("product"))")
            context.print("Version:    \(text("version"))")
            context.print("URL:        \(text("url"))")
            context.print("Interfaces:")
            if case .array(let names)? = reply.parameters["interfaces"] {
                for case .string(let name) in names { context.print("  \(TerminalText.sanitize(name))") }
            }
        }
    }

    /// `widgetctl call METHOD [PARAMETERS] [--more]`: any method, its parameters as JSON.
    struct Call: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Call any Varlink method with JSON parameters.",
            discussion: """
                METHOD is the full name, e.g. io.widgetd.Host.ListWidgets; PARAMETERS a JSON \
                object (default {}). Each reply's parameters are printed as one line of JSON; \
                with --more, replies are printed as they stream until the daemon ends the \
                stream or widgetctl is interrupted. An error is one line on standard error \
                (and, with --json, its object on standard output), with widgetctl's exit codes. \
                Passcodes given here are in the command line, which other users may read: \
                use widgetctl unlock and widgetctl passcode instead.
                """)

        @Argument(help: ArgumentHelp("The method's full name, e.g. io.widgetd.Device.GetStatus.", valueName: "method"))
        var method: String

        @Argument(help: ArgumentHelp("The parameters, a JSON object.", valueName: "parameters"))
        var parameters: String = "{}"

        @Flag(help: "Ask for a stream of replies (Varlink's \"more\"), as Watch and Monitor send.")
        var more = false

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            let parts = method.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 3, parts.allSatisfy({ !$0.isEmpty }), parts.last!.first!.isUppercase else {
                throw ValidationError("not a method's full name: '\(method)' (e.g. io.widgetd.Device.GetStatus)")
            }
            _ = try Self.parse(parameters)
        }

        /// The parameters as a JSON object, members in the order written (an entry's
        /// fields are stored in that order), or a usage error saying where the text goes wrong.
        static func parse(_ text: String) throws(ValidationError) -> OrderedJSON {
            let bytes = Array(text.utf8)
            let parsed: Result<OrderedJSON, JSONPlace> = bytes.withUnsafeBytes { raw in
                do throws(JSONReadError) {
                    // The value reader refuses a repeated key; the ordered one keeps what it reads.
                    _ = try JSONValue.parse(raw)
                    return .success(try OrderedJSON.parse(raw))
                } catch {
                    return .failure(JSONPlace(error, in: raw))
                }
            }
            switch parsed {
            case .success(let object) where object.isObject: return object
            case .success: throw ValidationError("the parameters must be a JSON object, e.g. '{}'")
            case .failure(let place): throw ValidationError("the parameters are not JSON: \(place.description)")
            }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let members: OrderedJSON
            do { members = try Self.parse(parameters) } catch { throw CommandFailure(error.message, exitCode: .usage) }
            if more {
                try context.stream(method: method, ordered: members) { reply in context.printJSON(reply) }
            } else {
                context.printJSON(try context.call(method: method, ordered: members))
            }
        }
    }
}
