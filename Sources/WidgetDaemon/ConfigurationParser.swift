import WidgetModel

/// One configuration file's path and text; parsing never touches the file system.
public struct ConfigurationSource: Sendable, Equatable {
    /// The path, for messages.
    public var path: String
    /// The file's contents.
    public var text: String

    /// Pairs a path with its text.
    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

/// Turns user and group names into ids (`getpwnam`, `getgrnam` in the daemon; a table
/// in tests).
public protocol AccountResolver {
    /// The uid of the user called `name`, or `nil` when there is none.
    func userID(named name: String) -> UInt32?
    /// The gid of the group called `name`, or `nil` when there is none.
    func groupID(named name: String) -> UInt32?
}

/// Parses widgetd's systemd-style INI files into a ``Configuration``.
///
/// Syntax: `[Section]` headers, `Key=Value` assignments (whitespace around both is
/// ignored), and comment lines starting with `#` or `;`. Drop-ins apply after the
/// main file in the order given (lexical, by the loader), a later assignment
/// overriding an earlier one; an empty value resets the key to its default. Provider
/// files hold `[Provider]` sections, one provider each.
public struct ConfigurationParser {
    private let resolver: any AccountResolver

    /// Creates a parser resolving user and group names with `resolver`.
    public init(resolver: any AccountResolver) {
        self.resolver = resolver
    }

    /// Parses the main file (absent: defaults), its drop-ins and the provider files.
    public func parse(
        main: ConfigurationSource?, dropIns: [ConfigurationSource] = [], providers: [ConfigurationSource] = []
    ) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        for source in [main].compactMap({ $0 }) + dropIns {
            for assignment in try Self.assignments(in: source) {
                try apply(assignment, to: &configuration)
            }
        }
        var firstPlace: [String: (file: String, line: Int)] = [:]
        for source in providers {
            for section in try providerSections(in: source, defaults: configuration) {
                let (registration, idLine) = section
                if let first = firstPlace[registration.id] {
                    throw ConfigurationError(
                        file: source.path, line: idLine,
                        reason: .duplicateProvider(id: registration.id, firstFile: first.file, firstLine: first.line))
                }
                firstPlace[registration.id] = (source.path, idLine)
                configuration.providers.append(registration)
            }
        }
        configuration.providers.sort { $0.id < $1.id }
        return configuration
    }

    // MARK: Lines

    /// One `Key=Value` line and where it is.
    struct Assignment {
        let file: String
        let line: Int
        let section: String
        /// The line of the section's header.
        let sectionLine: Int
        let key: String
        let value: String

        func error(_ reason: ConfigurationError.Reason) -> ConfigurationError {
            ConfigurationError(file: file, line: line, reason: reason)
        }
    }

    /// Every assignment in a file, with its section; sections without assignments are
    /// reported as assignments with an empty key so that they are checked too.
    static func assignments(in source: ConfigurationSource) throws(ConfigurationError) -> [Assignment] {
        var result: [Assignment] = []
        var section: String?
        var sectionLine = 0
        var lineNumber = 0
        for rawLine in source.text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ConfigurationError(file: source.path, line: lineNumber, reason: .malformedLine)
                }
                let name = String(line.dropFirst().dropLast())
                section = name
                sectionLine = lineNumber
                result.append(Assignment(
                    file: source.path, line: lineNumber, section: name, sectionLine: lineNumber, key: "", value: ""))
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError(file: source.path, line: lineNumber, reason: .malformedLine)
            }
            let key = String(line[..<equals]).trimmingWhitespace()
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            guard !key.isEmpty else {
                throw ConfigurationError(file: source.path, line: lineNumber, reason: .malformedLine)
            }
            guard let section else {
                throw ConfigurationError(file: source.path, line: lineNumber, reason: .keyOutsideSection(key))
            }
            result.append(Assignment(
                file: source.path, line: lineNumber, section: section, sectionLine: sectionLine, key: key, value: value))
        }
        return result
    }

    // MARK: widgetd.conf

    private func apply(_ assignment: Assignment, to configuration: inout Configuration) throws(ConfigurationError) {
        let defaults = Configuration()
        let value = assignment.value
        let reset = value.isEmpty
        switch (assignment.section, assignment.key) {
        case ("Daemon", ""), ("Access", ""):
            return
        case ("Daemon", "ClassAGraceSec"):
            configuration.classAGraceSeconds = reset ? defaults.classAGraceSeconds : try seconds(assignment)
        case ("Daemon", "WipeAfterFailedAttempts"):
            configuration.wipeAfterFailedAttempts = reset ? nil : try attemptLimit(assignment)
        case ("Daemon", "PasscodeKDF"):
            guard !reset else { configuration.passcodeKDF = defaults.passcodeKDF; return }
            guard let strength = PasscodeKDFStrength(rawValue: value) else {
                throw assignment.error(.invalidValue(
                    key: assignment.key, value: value, expected: "interactive, moderate, sensitive or minimum"))
            }
            configuration.passcodeKDF = strength
        case ("Daemon", "MaxTimelineBytes"):
            configuration.maxTimelineBytes = reset ? defaults.maxTimelineBytes : try size(assignment, minimum: 1024)
        case ("Daemon", "MaxMessageBytes"):
            configuration.maxMessageBytes = reset ? defaults.maxMessageBytes : try size(assignment, minimum: 1024)
        case ("Daemon", "MaxConnections"):
            configuration.maxConnections = reset ? defaults.maxConnections : try count(assignment, in: 1...65_536)
        case ("Daemon", "IdleTimeoutSec"):
            configuration.idleTimeoutSeconds = reset ? defaults.idleTimeoutSeconds : try seconds(assignment)
        case ("Daemon", "MaxCachedTimelines"):
            configuration.maxCachedTimelines =
                reset ? defaults.maxCachedTimelines : try count(assignment, in: 1...1_000_000)
        case ("Daemon", "MaxWidgetsPerProvider"):
            configuration.maxWidgetsPerProvider =
                reset ? defaults.maxWidgetsPerProvider : try count(assignment, in: Self.widgetQuotaRange)
        case ("Daemon", "MaxBytesPerProvider"):
            configuration.maxBytesPerProvider =
                reset ? defaults.maxBytesPerProvider : try size(assignment, minimum: Self.minimumByteQuota)
        case ("Access", "AdminGroup"):
            configuration.adminGroup = reset ? nil : try group(assignment)
        case ("Access", "UnlockGroup"):
            configuration.unlockGroup = reset ? nil : try group(assignment)
        case ("Access", "HostGroup"):
            configuration.hostGroup = reset ? nil : try group(assignment)
        case ("Daemon", _), ("Access", _):
            throw assignment.error(.unknownKey(section: assignment.section, key: assignment.key))
        default:
            throw assignment.error(.unknownSection(assignment.section))
        }
    }

    // MARK: providers.d

    /// `MaxWidgets=` and `[Daemon] MaxWidgetsPerProvider=`: at least one widget.
    static let widgetQuotaRange = 1...1_000_000
    /// The least `MaxBytes=`: one small timeline file.
    static let minimumByteQuota = 1024

    /// The `[Provider]` sections of one file; quotas they do not set are `defaults`' (the
    /// `[Daemon]` values, which the main file and drop-ins have set by now).
    private func providerSections(
        in source: ConfigurationSource, defaults: Configuration
    ) throws(ConfigurationError) -> [(ProviderRegistration, idLine: Int)] {
        struct Draft {
            var headerLine: Int
            var id: (String, line: Int)?
            var uid: UInt32?
            var gid: UInt32?
            var dataProtection: ProtectionClass = .completeUntilFirstUserAuthentication
            var maxWidgets: Int?
            var maxBytes: Int?
        }
        var drafts: [Draft] = []
        for assignment in try Self.assignments(in: source) {
            guard assignment.section == "Provider" else {
                throw assignment.error(.unknownSection(assignment.section))
            }
            if assignment.key.isEmpty {
                drafts.append(Draft(headerLine: assignment.line))
                continue
            }
            let value = assignment.value
            switch assignment.key {
            case "Id":
                guard WidgetID.isValidProviderID(value) else { throw assignment.error(.invalidProviderID(value)) }
                drafts[drafts.count - 1].id = (value, assignment.line)
            case "User":
                drafts[drafts.count - 1].uid = value.isEmpty ? nil : try user(assignment)
            case "Group":
                drafts[drafts.count - 1].gid = value.isEmpty ? nil : try group(assignment)
            case "DataProtection":
                if value.isEmpty {
                    drafts[drafts.count - 1].dataProtection = .completeUntilFirstUserAuthentication
                } else if let protection = ProtectionClass(rawValue: value) {
                    drafts[drafts.count - 1].dataProtection = protection
                } else {
                    throw assignment.error(.invalidValue(
                        key: "DataProtection", value: value,
                        expected: ProtectionClass.allCases.map(\.rawValue).joined(separator: ", ")))
                }
            case "MaxWidgets":
                drafts[drafts.count - 1].maxWidgets = value.isEmpty ? nil : try count(assignment, in: Self.widgetQuotaRange)
            case "MaxBytes":
                drafts[drafts.count - 1].maxBytes = value.isEmpty ? nil : try size(assignment, minimum: Self.minimumByteQuota)
            default:
                throw assignment.error(.unknownKey(section: "Provider", key: assignment.key))
            }
        }
        var result: [(ProviderRegistration, idLine: Int)] = []
        for draft in drafts {
            guard let (id, idLine) = draft.id else {
                throw ConfigurationError(
                    file: source.path, line: draft.headerLine, reason: .missingKey(section: "Provider", key: "Id"))
            }
            guard draft.uid != nil || draft.gid != nil else {
                throw ConfigurationError(file: source.path, line: draft.headerLine, reason: .noWriter)
            }
            result.append((
                ProviderRegistration(
                    id: id, uid: draft.uid, gid: draft.gid, dataProtection: draft.dataProtection,
                    maxWidgets: draft.maxWidgets ?? defaults.maxWidgetsPerProvider,
                    maxBytes: draft.maxBytes ?? defaults.maxBytesPerProvider, file: source.path),
                idLine
            ))
        }
        return result
    }

    // MARK: Values

    private func seconds(_ assignment: Assignment) throws(ConfigurationError) -> Double {
        guard let seconds = Double(assignment.value), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw assignment.error(.invalidValue(
                key: assignment.key, value: assignment.value, expected: "seconds between 0 and 86400"))
        }
        return seconds
    }

    private func attemptLimit(_ assignment: Assignment) throws(ConfigurationError) -> Int? {
        if ["off", "no", "false", "0"].contains(assignment.value) { return nil }
        guard let attempts = Int(assignment.value), attempts >= 1 else {
            throw assignment.error(.invalidValue(
                key: assignment.key, value: assignment.value, expected: "a number of attempts, or off"))
        }
        return attempts
    }

    private func count(_ assignment: Assignment, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let number = Int(assignment.value), range.contains(number) else {
            throw assignment.error(.invalidValue(
                key: assignment.key, value: assignment.value,
                expected: "a number from \(range.lowerBound) to \(range.upperBound)"))
        }
        return number
    }

    /// A byte size: a number with an optional `K`, `M` or `G` suffix (powers of 1024).
    private func size(_ assignment: Assignment, minimum: Int) throws(ConfigurationError) -> Int {
        var digits = Substring(assignment.value)
        var multiplier = 1
        if let last = digits.last, let power = ["K": 1, "M": 2, "G": 3][String(last).uppercased()] {
            multiplier = 1 << (10 * power)
            digits = digits.dropLast()
        }
        guard let number = Int(digits), number >= 0,
              case (let bytes, false) = number.multipliedReportingOverflow(by: multiplier),
              bytes >= minimum, bytes <= 1 << 30
        else {
            throw assignment.error(.invalidValue(
                key: assignment.key, value: assignment.value,
                expected: "a size from \(minimum) bytes to 1G, with an optional K, M or G suffix"))
        }
        return bytes
    }

    private func user(_ assignment: Assignment) throws(ConfigurationError) -> UInt32 {
        if let uid = UInt32(assignment.value) { return uid }
        guard let uid = resolver.userID(named: assignment.value) else {
            throw assignment.error(.unknownUser(assignment.value))
        }
        return uid
    }

    private func group(_ assignment: Assignment) throws(ConfigurationError) -> UInt32 {
        if let gid = UInt32(assignment.value) { return gid }
        guard let gid = resolver.groupID(named: assignment.value) else {
            throw assignment.error(.unknownGroup(assignment.value))
        }
        return gid
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and carriage returns.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}
