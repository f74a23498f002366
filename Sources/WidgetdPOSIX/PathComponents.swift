/// The two path operations the daemon needs on plain strings, as `NSString`'s
/// `deletingLastPathComponent` and `appendingPathComponent` do them: those live in full
/// Foundation only, which this module does not link (it would bring ICU's 34 MB of data
/// into the binary).
package enum PathComponents {
    /// The directory holding `path`: `/a/b` and `/a/b/` give `/a`, `/a` gives `/`, `/`
    /// stays `/`, and a bare name gives the empty string (as `deletingLastPathComponent`).
    package static func parent(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard trimmed != "/" else { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let head = trimmingTrailingSlashes(String(trimmed[..<slash]))
        return head.isEmpty ? "/" : head
    }

    /// `name` inside `directory`, with exactly one slash between them.
    package static func appending(_ name: String, to directory: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// `path` without trailing slashes, except that `/` (or `//`…) stays `/`.
    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var result = Substring(path)
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return String(result)
    }
}
