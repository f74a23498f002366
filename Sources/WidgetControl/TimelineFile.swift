import FoundationEssentials
import Glibc
import StrictJSON
import WidgetModel

/// The file `put` and `append` send: `{"entries":[…],"policy":{…}?,"placeholder":{…}?,"family":…?}`.
///
/// The widget comes from the command line; a file may name one too (`"widget"`, as the
/// examples in config/timelines/ do), and then it must be the same. The daemon validates the entries; this
/// only checks the file's outline so a mistake is reported against the file.
struct TimelineFile {
    /// The largest file read: the daemon's own limit is lower, and it says so.
    static let maximumBytes = 64 << 20

    /// The timeline's members, by wire name (without `widget`).
    let members: [String: JSONValue]
    /// The widget the file names, if it names one.
    let widget: String?

    /// The keys a timeline file may hold.
    static let allowedKeys: Set<String> = ["entries", "policy", "placeholder", "family", "widget"]

    /// Fails when the file names another widget than `commandLineWidget`.
    func check(against commandLineWidget: String, path: String) throws(CommandFailure) {
        if let widget, widget != commandLineWidget {
            throw CommandFailure("\(path == "-" ? "standard input" : path) is for \(widget), not \(commandLineWidget)")
        }
    }

    /// Reads and checks the file at `path` (`-` for standard input).
    init(path: String, standardInput: any InputSource) throws(CommandFailure) {
        let bytes = path == "-"
            ? try standardInput.readToEnd(limit: Self.maximumBytes) : try Self.readFile(path)
        let name = path == "-" ? "standard input" : path
        // widgetd reads strict JSON (RFC 8259: no trailing comma, no comment, valid UTF-8),
        // and so does this: the same reader, which keeps numbers as their text, so that
        // they are sent as written.
        let parsed: Result<JSONValue, JSONReadError> = bytes.withUnsafeBytes { raw in
            do throws(JSONReadError) { return .success(try JSONValue.parse(raw)) } catch { return .failure(error) }
        }
        if case .failure(let syntax) = parsed {
            throw CommandFailure("\(name) is not JSON: \(syntax.message) (at byte \(syntax.offset))")
        }
        guard case .success(let value) = parsed else {
            throw CommandFailure("\(name) is not JSON")
        }
        guard case .object(let object) = value else {
            throw CommandFailure("\(name) must hold a JSON object with \"entries\"")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.allowedKeys.contains($0) }) {
            throw CommandFailure("\(name): unknown key \"\(unknown)\" (expected entries, policy, placeholder, family, widget)")
        }
        guard case .array? = object["entries"] else {
            throw CommandFailure("\(name): \"entries\" must be an array of entries")
        }
        for (key, isValid) in [
            ("policy", Self.isObject), ("placeholder", Self.isObject), ("family", Self.isString), ("widget", Self.isString),
        ] {
            if let member = object[key], member != .null, !isValid(member) {
                throw CommandFailure("\(name): \"\(key)\" has the wrong type")
            }
        }
        if case .string(let named)? = object["widget"] { widget = named } else { widget = nil }
        members = object.filter { $0.value != .null && $0.key != "widget" }
    }

    private static func isObject(_ value: JSONValue) -> Bool { if case .object = value { true } else { false } }
    private static func isString(_ value: JSONValue) -> Bool { if case .string = value { true } else { false } }

    private static func readFile(_ path: String) throws(CommandFailure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CommandFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try FileDescriptorInput(fileDescriptor: fd).readToEnd(limit: maximumBytes)
    }
}
