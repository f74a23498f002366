/// The one question widgetd asks of a Flatpak sandbox's `/.flatpak-info` (a GLib key
/// file that Flatpak writes and mounts read-only at the sandbox's root): which
/// application runs in it, `[Application] name=APP-ID`.
///
/// Strict where GLib is lenient, so that a file this reader accepts means one thing: a
/// second `name=` in `[Application]` or a second `[Application]` group (GLib would take
/// the last) is refused rather than guessed at, as is an id that is not a valid
/// Flatpak application id. Flatpak never writes either.
package enum FlatpakInfo {
    /// The most bytes of `/.flatpak-info` read; Flatpak's own are a few hundred bytes.
    package static let maxBytes = 64 << 10

    /// The application id that `text` (the whole file) names, or `nil` if it names none,
    /// names one twice, or names an invalid one.
    package static func applicationID(in text: some Collection<UInt8>) -> String? {
        var group: Substring?
        var applicationGroups = 0
        var name: String?
        var names = 0
        // Split as bytes: a "\r\n" is one Character, which a split on "\n" would not see.
        for rawLine in Array(text).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let trimmed = Substring(String(decoding: rawLine, as: UTF8.self)).trimmingSpaces
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else { return nil }
                group = trimmed.dropFirst().dropLast()
                if group == "Application" { applicationGroups += 1 }
                continue
            }
            guard group == "Application", let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingSpaces
            guard key == "name" else { continue }
            names += 1
            name = String(trimmed[trimmed.index(after: equals)...].trimmingSpaces)
        }
        guard applicationGroups == 1, names == 1, let name, isValidApplicationID(name) else { return nil }
        return name
    }

    /// Whether `id` is a valid Flatpak application id, by Flatpak's rule
    /// (`flatpak_is_valid_name`): at most 255 bytes, at least three elements separated
    /// by dots, each non-empty, of ASCII letters, digits, `_` and `-`, and not
    /// beginning with a digit.
    package static func isValidApplicationID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return false }
        for element in elements {
            guard let first = element.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            for byte in element {
                let allowed =
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                guard allowed else { return false }
            }
        }
        return true
    }
}

extension Substring {
    /// Without the spaces, tabs and carriage returns around it.
    fileprivate var trimmingSpaces: Substring {
        func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" || character == "\r" }
        var result = self
        while let first = result.first, isSpace(first) { result = result.dropFirst() }
        while let last = result.last, isSpace(last) { result = result.dropLast() }
        return result
    }
}
