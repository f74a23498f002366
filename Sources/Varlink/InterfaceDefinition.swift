/// A Varlink interface definition: the `.varlink` text a service serves through
/// `org.varlink.service.GetInterfaceDescription`, and the names declared in it.
///
/// The text is parsed only as far as the server needs it: the interface name and the
/// names of its methods, so that a call to an undeclared method gets
/// `org.varlink.service.MethodNotFound` before any handler sees it.
public struct InterfaceDefinition: Sendable, Hashable {
    /// The interface definition text, exactly as served.
    public let text: String
    /// The interface name, e.g. `io.widgetd.Host`.
    public let name: String
    /// The member names of the declared methods, e.g. `GetPresentation`.
    public let methods: Set<String>
    /// The member names of the declared errors, e.g. `WidgetNotFound`.
    public let errors: Set<String>

    /// Reads the interface name and the method and error names from a definition.
    ///
    /// Only the keywords at the start of a line are read; the texts this module embeds
    /// put every declaration on a line of its own, and a real parser (a client's) checks
    /// the rest.
    public init(text: String) {
        var name = ""
        var methods: Set<String> = []
        var errors: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "(" })
            guard words.count >= 2 else { continue }
            switch words[0] {
            case "interface": name = String(words[1])
            case "method": methods.insert(String(words[1]))
            case "error": errors.insert(String(words[1]))
            default: continue
            }
        }
        self.text = text
        self.name = name
        self.methods = methods
        self.errors = errors
    }
}
