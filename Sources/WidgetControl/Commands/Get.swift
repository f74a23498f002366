import ArgumentParser
import WidgetdClient
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl get WIDGET [--surface S]`: what a host would show.
    ///
    /// A host is shown a placeholder for a widget that is not stored, so that it learns
    /// nothing it may not (DESIGN §4 rule 4). Its provider's user and an administrator
    /// may know what is stored: to them a placeholder for a widget not stored is "no
    /// such widget" (exit 1, `io.widgetd.WidgetNotFound` with `--json`).
    struct Get: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Preview a widget as a host would show it.",
            discussion: """
                A widget that is not stored is "no such widget" (exit 1) to its provider's \
                user and to administrators; any other host is shown its placeholder.
                """)

        @OptionGroup var target: PresentationTarget
        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            let client = try context.connect()
            let reply = try context.call(on: client, .getPresentation, target.parameters)
            let presentation = try context.decode(PresentationReply.self, from: reply).presentation
            var reason: String?
            if presentation.mode == .placeholder {
                if Self.isKnownNotStored(target.widget, on: client, context) {
                    throw CommandFailure("no such widget \(target.widget) (widgetctl list shows the stored widgets)")
                        .reported(as: WidgetdErrorName.widgetNotFound.fullName, ["widget": .string(target.widget)])
                }
                reason = Self.placeholderReason(on: client, context)
            }
            if context.json { return context.printJSON(reply.parameters) }
            context.standardOutput.write(context.renderer().render(presentation, placeholderReason: reason))
        }

        /// Whether the caller may see `widget`'s provider (it is that provider's user or an
        /// administrator: `ListProviders` lists it) and its stored widgets lack `widget`.
        /// Any refusal or failure on the way means "not known": the placeholder stands.
        static func isKnownNotStored(_ widget: String, on client: ClientSocket, _ context: CommandContext) -> Bool {
            guard let provider = widget.split(separator: "/", maxSplits: 1).first.map(String.init),
                  let providers = try? context.call(on: client, .listProviders),
                  let listed = try? context.decode(ProviderListReply.self, from: providers),
                  listed.providers.contains(where: { $0.id == provider })
            else { return false }
            var after: String?
            repeat {
                var parameters: [String: JSONValue] = ["provider": .string(provider), "limit": .number(JSONNumber(List.pageSize))]
                if let after { parameters["after"] = .string(after) }
                guard let reply = try? context.call(on: client, .listWidgets, parameters),
                      let page = try? context.decode(ListWidgetsReply.self, from: reply)
                else { return false }
                if page.widgets.contains(where: { $0.widget == widget }) { return false }
                after = page.next
            } while after != nil
            return true
        }

        /// Why a widget shows its placeholder, from the lock state (`GetStatus`,
        /// which every peer may call); `nil` when the state does not say.
        static func placeholderReason(on client: ClientSocket, _ context: CommandContext) -> String? {
            guard let reply = try? context.call(on: client, .getStatus), let status = try? context.decode(StatusReply.self, from: reply)
            else { return nil }
            switch status.state {
            case .beforeFirstUnlock:
                return "not unlocked since widgetd started: nothing but the placeholder is shown until the first unlock (widgetctl unlock)"
            case .locked:
                return "locked: its data protection class is not shown while locked, or no readable timeline is stored"
            case .unlocked:
                return "no readable timeline is stored for it"
            }
        }
    }
}
