import Glibc
import WidgetdClient
import WidgetdWire
import WidgetModel

/// Shell completion from the live daemon: the generated bash, zsh and fish scripts run
/// `widgetctl ---completion …`, which calls these in the widgetctl process.
///
/// Quiet by design: a daemon that is not running or refuses the user completes nothing.
enum WidgetCompletion {
    /// The stored widget ids that start with the word under the cursor.
    @Sendable static func widgets(_ words: [String], _ cursor: Int, _ prefix: String) -> [String] {
        storedWidgets(socket: socketOption(in: words)).filter { $0.hasPrefix(prefix) }
    }

    /// The providers, and the `PROVIDER/KIND` pairs, of the stored widgets (`reload`).
    @Sendable static func providers(_ words: [String], _ cursor: Int, _ prefix: String) -> [String] {
        var targets: Set<String> = []
        for widget in storedWidgets(socket: socketOption(in: words)) {
            let kind = widget.split(separator: "#", maxSplits: 1)[0]
            targets.insert(String(kind))
            targets.insert(String(kind.split(separator: "/", maxSplits: 1)[0]))
        }
        return targets.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The ids of the actions the widget named in the words shows now on the surface named
    /// (`--surface`, default the home screen), from `GetPresentation` (`act`).
    @Sendable static func actions(_ words: [String], _ cursor: Int, _ prefix: String) -> [String] {
        guard let act = words.firstIndex(of: "act") else { return [] }
        var surface = "homeScreen"
        var widget: String?
        var index = act + 1
        while index < words.count, index < cursor {
            let word = words[index]
            if word == "--surface" || word == "--socket" {
                if word == "--surface", index + 1 < words.count {
                    surface = SurfaceName(argument: words[index + 1])?.surface.rawValue ?? surface
                }
                index += 2
                continue
            }
            if word.hasPrefix("--surface=") {
                surface = SurfaceName(argument: String(word.dropFirst("--surface=".count)))?.surface.rawValue ?? surface
            } else if !word.hasPrefix("-"), widget == nil {
                widget = word
            }
            index += 1
        }
        guard let widget else { return [] }
        let path = SocketLocation.resolve(option: socketOption(in: words), environment: ProcessInfoEnvironment.current, userID: getuid())
        let parameters: [String: JSONValue] = ["widget": .string(widget), "surface": .string(surface)]
        guard let socket = try? ClientSocket(path: path),
              let reply = try? socket.call(WireCoding.call(WidgetdMethod.getPresentation.fullName, values: parameters)),
              reply.error == nil, let shown = try? reply.decode(PresentationReply.self)
        else { return [] }
        return shown.presentation.actions.map(\.id).filter { $0.hasPrefix(prefix) }
    }

    /// The widget ids `Host.ListWidgets` gives, sorted; none when the call fails.
    static func storedWidgets(socket: String?) -> [String] {
        let path = SocketLocation.resolve(option: socket, environment: ProcessInfoEnvironment.current, userID: getuid())
        guard let socket = try? ClientSocket(path: path),
              let reply = try? socket.call(WireCoding.call(WidgetdMethod.listWidgets.fullName, values: [:])), reply.error == nil,
              let list = try? reply.decode(ListWidgetsReply.self)
        else { return [] }
        return list.widgets.map(\.widget).sorted()
    }

    /// The `--socket` the words being completed name, if any.
    static func socketOption(in words: [String]) -> String? {
        var found: String?
        for (index, word) in words.enumerated() {
            if word == "--socket", index + 1 < words.count {
                found = words[index + 1]
            } else if word.hasPrefix("--socket=") {
                found = String(word.dropFirst("--socket=".count))
            }
        }
        return found
    }
}
