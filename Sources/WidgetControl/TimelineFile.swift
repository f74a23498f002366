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
    /// The same members as their text in the file, made compact: sent as they are, so
    /// that each `fields` object keeps its order (hosts draw fields in it), which a
    /// `JSONValue` object does not keep.
    let memberText: [String: [UInt8]]
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
        let parsed: Result<JSONValue, JSONPlace> = bytes.withUnsafeBytes { raw in
            do throws(JSONReadError) { return .success(try JSONValue.parse(raw)) } catch {
                return .failure(JSONPlace(error, in: raw))
            }
        }
        if case .failure(let place) = parsed {
            throw CommandFailure("\(name):\(place.line):\(place.column): not JSON: \(place.reason)")
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
                throw CommandFailure("\(name): \"\(key)\" has the wrong type\(Self.hint(for: [.key(key)]))")
            }
        }
        if let place = Self.firstModelProblem(in: bytes) {
            throw CommandFailure("\(name):\(place.line):\(place.column): \(place.reason)\(Self.hint(for: place.path))")
        }
        if case .string(let named)? = object["widget"] { widget = named } else { widget = nil }
        let kept = object.filter { $0.value != .null && $0.key != "widget" }
        members = kept
        memberText = Self.compactMembers(of: bytes).filter { kept[$0.key] != nil }
    }

    /// Each top-level member's value as compact JSON text, in the file's own order
    /// within it. `bytes` has been read as JSON already.
    static func compactMembers(of bytes: [UInt8]) -> [String: [UInt8]] {
        bytes.withUnsafeBytes { raw -> [String: [UInt8]] in
            var texts: [String: [UInt8]] = [:]
            var reader = JSONReader(raw)
            try? reader.readObject { (reader, key) throws(JSONReadError) in
                _ = try reader.peek()
                let start = reader.offset
                try reader.skipValue()
                texts[key] = compact(raw[start..<reader.offset])
            }
            return texts
        }
    }

    /// JSON text without the whitespace between tokens.
    static func compact(_ text: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var inString = false
        var escaped = false
        for byte in text {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                continue
            }
            out.append(byte)
        }
        return out
    }

    /// The first value in the document, in text order, that widgetd's own readers
    /// refuse in `entries`, `policy` or `placeholder`, so that the mistake is named by
    /// line and column in the file rather than by the daemon's path alone.
    static func firstModelProblem(in bytes: [UInt8]) -> JSONPlace? {
        bytes.withUnsafeBytes { raw -> JSONPlace? in
            var reader = JSONReader(raw)
            do throws(JSONReadError) {
                try reader.readObject { (reader, key) throws(JSONReadError) in
                    switch key {
                    case "entries": _ = try Entry.readArray(from: &reader)
                    case "policy": if try !reader.readNull() { _ = try ReloadPolicy.read(from: &reader) }
                    case "placeholder": if try !reader.readNull() { _ = try Placeholder.read(from: &reader) }
                    default: try reader.skipValue()
                    }
                }
                return nil
            } catch {
                return JSONPlace(error, in: raw)
            }
        }
    }

    /// What the value at `path` should look like, for the mistakes people make most:
    /// a reload policy given as a word, a field given as its bare value.
    static func hint(for path: [JSONPathComponent]) -> String {
        switch path.first {
        case .key("policy")?:
            return #"; a policy is an object: {"kind": "atEnd"}, {"kind": "never"} or {"kind": "after", "date": "2026-12-01T10:00:00Z"}"#
        case .key("entries")?, .key("placeholder")?:
            // entries[i].fields.NAME or placeholder.fields.NAME, given as something else.
            guard path.count >= 2, path[path.count - 2] == .key("fields") else { return "" }
            return #"; a field is an object: {"value": …}, with "privacy": "sensitive" or "public" if it needs one"#
        default:
            return ""
        }
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
