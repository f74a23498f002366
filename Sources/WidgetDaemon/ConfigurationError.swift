import WidgetdWire

/// Why a configuration file was rejected, with the file and line to fix.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    enum Reason: Sendable, Equatable {
        /// The file exists but cannot be read (the errno's text).
        case unreadable(String)
        /// A line that is neither a section, an assignment nor a comment.
        case malformedLine
        /// An assignment before any `[Section]`.
        case keyOutsideSection(String)
        /// A section this file may not have.
        case unknownSection(String)
        /// A key its section does not have.
        case unknownKey(section: String, key: String)
        /// A value the key does not accept; `expected` says what would be.
        case invalidValue(key: String, value: String, expected: String)
        /// A `[Provider]` without a required key.
        case missingKey(section: String, key: String)
        /// A `[Provider]` with none of `User=`, `Group=` and `App=`: nobody could write for it.
        case noWriter
        /// A provider id that is not a valid provider id.
        case invalidProviderID(String)
        /// A provider id registered twice; the first registration's place.
        case duplicateProvider(id: String, firstFile: String, firstLine: Int)
        /// `User=` names no user.
        case unknownUser(String)
        /// A group name that names no group.
        case unknownGroup(String)
    }

    /// The file at fault.
    let file: String
    /// The 1-based line at fault, or 0 for the file as a whole.
    let line: Int
    /// What is wrong.
    let reason: Reason

    /// Creates an error for `file:line`.
    init(file: String, line: Int, reason: Reason) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `FILE:LINE: reason`, the way compilers and systemd report them.
    package var description: String {
        let place = line > 0 ? "\(file):\(line)" : file
        return "\(place): \(reasonText)"
    }

    var reasonText: String {
        switch reason {
        case .unreadable(let why): "cannot read the file: \(why)"
        case .malformedLine: "expected [Section], Key=Value or a comment"
        case .keyOutsideSection(let key): "'\(key)=' appears before any [Section]"
        case .unknownSection(let section):
            "unknown section [\(section)]"
                + (NameSuggestion.closest(to: section, among: (ConfigurationTable.sections + ["Provider"]).filter { $0 != section }).map { "; did you mean [\($0)]?" } ?? "")
        case .unknownKey(let section, let key):
            "unknown key '\(key)' in section [\(section)]"
                + (NameSuggestion.closest(to: key, among: ConfigurationTable.keyNames(section: section)).map { "; did you mean \($0)=?" } ?? "")
        case .invalidValue(let key, let value, let expected): "invalid value '\(value)' for \(key)=: expected \(expected)"
        case .missingKey(let section, let key): "[\(section)] needs \(key)="
        case .noWriter: "[Provider] needs User=, Group= or App=: otherwise nobody may write for it"
        case .invalidProviderID(let id):
            "invalid provider id '\(id)': printable ASCII without '/', '#' or '..', at most 255 bytes"
        case .duplicateProvider(let id, let firstFile, let firstLine):
            "provider '\(id)' is already registered at \(firstFile):\(firstLine)"
        case .unknownUser(let name): "unknown user '\(name)'"
        case .unknownGroup(let name): "unknown group '\(name)'"
        }
    }
}

/// A problem found in the configuration that did not stop it from loading, or, for
/// `widgetd --check-config`, any problem at all.
struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    /// How serious it is.
    enum Severity: String, Sendable, Equatable {
        /// Ignored with a message: an unknown key or section, as systemd treats them.
        case warning
        /// A value or file that cannot be used.
        case error
    }

    /// How serious it is.
    let severity: Severity
    /// What is wrong, and where.
    let error: ConfigurationError
    /// Whether the file it is in was a provider file whose providers are therefore not
    /// registered.
    let disablesProviderFile: Bool

    /// Creates a problem.
    init(severity: Severity, error: ConfigurationError, disablesProviderFile: Bool = false) {
        self.severity = severity
        self.error = error
        self.disablesProviderFile = disablesProviderFile
    }

    /// `FILE:LINE: warning: reason`, as compilers print them; a disabled provider file
    /// says so.
    var description: String {
        "\(place): \(severity.rawValue): \(error.reasonText)\(suffix)"
    }

    /// `FILE:LINE: reason`, for a log line, whose level says the severity already.
    var logMessage: String { "\(place): \(error.reasonText)\(suffix)" }

    private var place: String { error.line > 0 ? "\(error.file):\(error.line)" : error.file }
    private var suffix: String { disablesProviderFile ? " (no provider of this file is registered)" : "" }
}
