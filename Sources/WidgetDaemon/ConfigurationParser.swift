import WidgetModel

/// One configuration file's path and text; parsing never touches the file system.
package struct ConfigurationSource: Sendable, Equatable {
    /// The path, for messages.
    var path: String
    /// The file's contents.
    var text: String

    /// Pairs a path with its text.
    package init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

/// Turns user and group names into ids (`getpwnam`, `getgrnam` in the daemon; a table
/// in tests).
package protocol AccountResolver {
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
/// files hold `[Provider]` sections, one provider each. Which keys there are, and how
/// each value is read, is ``ConfigurationTable``'s; this type reads lines and sections.
package struct ConfigurationParser {
    private let resolver: any AccountResolver
    /// The owner of a per-user instance (its uid), or nil for a system instance.
    private let instanceOwner: UInt32?

    /// Creates a parser resolving user and group names with `resolver`.
    ///
    /// `instanceOwner`: the uid a per-user instance runs as. There a `[Provider]` with
    /// none of `User=`, `Group=` and `App=` is the owner's: the owner is an admin of its
    /// own instance already, and a sandboxed app is admitted only by `App=`, so this
    /// grants nobody anything new, and the shipped `providers.d` files need no editing.
    /// nil (a system instance, or not known) keeps such a section an error: nobody may
    /// write for it (fail closed).
    package init(resolver: any AccountResolver, instanceOwner: UInt32? = nil) {
        self.resolver = resolver
        self.instanceOwner = instanceOwner
    }

    /// Parses the main file (absent: defaults), its drop-ins and the provider files.
    ///
    /// An error in the main file or a drop-in is thrown: the daemon does not start on a
    /// value it cannot honour. Everything else is recorded in
    /// ``Configuration/problems`` and the rest is used: an unknown key or section is a
    /// warning (as in systemd), and a provider file with an error registers none of
    /// its providers (so one bad file cannot stop every other provider).
    package func parse(
        main: ConfigurationSource?, dropIns: [ConfigurationSource] = [], providers: [ConfigurationSource] = []
    ) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        for source in [main].compactMap({ $0 }) + dropIns {
            for assignment in try Self.assignments(in: source) {
                try apply(assignment, to: &configuration)
            }
        }
        registerProviders(from: providers, in: &configuration)
        return configuration
    }

    /// Every problem of the files, errors and warnings alike, in file order: what
    /// `widgetd --check-config` prints. Unlike ``parse(main:dropIns:providers:)`` it
    /// does not stop at the first error of the main file.
    func check(
        main: ConfigurationSource?, dropIns: [ConfigurationSource] = [], providers: [ConfigurationSource] = []
    ) -> [ConfigurationProblem] {
        var configuration = Configuration()
        for source in [main].compactMap({ $0 }) + dropIns {
            let assignments: [Assignment]
            do { assignments = try Self.assignments(in: source) } catch {
                configuration.problems.append(.init(severity: .error, error: error))
                continue
            }
            for assignment in assignments {
                do { try apply(assignment, to: &configuration) } catch {
                    configuration.problems.append(.init(severity: .error, error: error))
                }
            }
        }
        registerProviders(from: providers, in: &configuration)
        return configuration.problems
    }

    /// Registers the providers of every file that has no error; a file with one is
    /// recorded as a problem and registers nothing.
    private func registerProviders(from sources: [ConfigurationSource], in configuration: inout Configuration) {
        var firstPlace: [String: (file: String, line: Int)] = [:]
        for source in sources {
            do throws(ConfigurationError) {
                let sections = try providerSections(in: source, defaults: configuration)
                for (registration, idLine) in sections {
                    if let first = firstPlace[registration.id] {
                        throw ConfigurationError(
                            file: source.path, line: idLine,
                            reason: .duplicateProvider(id: registration.id, firstFile: first.file, firstLine: first.line))
                    }
                }
                for (registration, idLine) in sections {
                    firstPlace[registration.id] = (source.path, idLine)
                    configuration.providers.append(registration)
                }
            } catch {
                configuration.problems.append(.init(severity: .error, error: error, disablesProviderFile: true))
            }
        }
        configuration.providers.sort { $0.id < $1.id }
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

    /// Applies one line of `widgetd.conf` or a drop-in through ``ConfigurationTable``.
    /// An unknown key of a known section, or an unknown section, is a warning (as in
    /// systemd); the keys of an unknown section are ignored under its warning.
    private func apply(_ assignment: Assignment, to configuration: inout Configuration) throws(ConfigurationError) {
        guard ConfigurationTable.sections.contains(assignment.section) else {
            if assignment.key.isEmpty {
                configuration.problems.append(
                    .init(severity: .warning, error: assignment.error(.unknownSection(assignment.section))))
            }
            return
        }
        guard !assignment.key.isEmpty else { return }
        guard let key = ConfigurationTable.key(section: assignment.section, name: assignment.key) else {
            configuration.problems.append(
                .init(severity: .warning, error: assignment.error(.unknownKey(section: assignment.section, key: assignment.key))))
            return
        }
        try key.apply(self, assignment, &configuration)
    }

    /// A tpm2-tss TCTI string: a name of lower-case letters, digits and `-`, then
    /// optionally `:` and a configuration of printable ASCII without spaces.
    static func isTCTIString(_ text: String) -> Bool {
        let (name, config) = text.firstIndex(of: ":").map { (text[..<$0], text[text.index(after: $0)...]) }
            ?? (text[...], "")
        return !name.isEmpty
            && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
            && config.allSatisfy { $0.isASCII && $0 > " " && $0 != "\u{7F}" }
    }

    // MARK: providers.d

    /// `MaxWidgets=` and `[Daemon] MaxWidgetsPerProvider=`: at least one widget.
    static let widgetQuotaRange = 1...1_000_000
    /// The least `MaxBytes=`: one small timeline file.
    static let minimumByteQuota = 1024

    /// The `[Provider]` sections of one file; quotas they do not set are `defaults`' (the
    /// `[Daemon]` values, which the main file and drop-ins have set by now). An unknown
    /// key here is an error, not a warning as in `[Daemon]`: a misspelt `DataProtection=`
    /// would otherwise store the provider's timelines under the default class, weaker
    /// than the one meant (``ConfigurationTable/providerKeys``).
    private func providerSections(
        in source: ConfigurationSource, defaults: Configuration
    ) throws(ConfigurationError) -> [(ProviderRegistration, idLine: Int)] {
        var drafts: [ProviderDraft] = []
        for assignment in try Self.assignments(in: source) {
            guard assignment.section == "Provider" else {
                throw assignment.error(.unknownSection(assignment.section))
            }
            if assignment.key.isEmpty {
                drafts.append(ProviderDraft(headerLine: assignment.line))
                continue
            }
            guard let key = ConfigurationTable.providerKey(name: assignment.key) else {
                throw assignment.error(.unknownKey(section: "Provider", key: assignment.key))
            }
            try key.apply(self, assignment, &drafts[drafts.count - 1])
        }
        var result: [(ProviderRegistration, idLine: Int)] = []
        for draft in drafts {
            guard let id = draft.id else {
                throw ConfigurationError(
                    file: source.path, line: draft.headerLine, reason: .missingKey(section: "Provider", key: "Id"))
            }
            var uid = draft.uid
            if draft.uid == nil && draft.gid == nil && draft.app == nil {
                guard let instanceOwner else {
                    throw ConfigurationError(file: source.path, line: draft.headerLine, reason: .noWriter)
                }
                uid = instanceOwner
            }
            result.append((
                ProviderRegistration(
                    id: id.value, uid: uid, gid: draft.gid, app: draft.app, dataProtection: draft.dataProtection, unit: draft.unit,
                    maxWidgets: draft.maxWidgets ?? defaults.maxWidgetsPerProvider,
                    maxBytes: draft.maxBytes ?? defaults.maxBytesPerProvider, file: source.path),
                id.line
            ))
        }
        return result
    }

    // MARK: Values

    /// A time span as systemd writes it (`10`, `10s`, `500ms`, `5min`, `1h 30min`),
    /// from 0 to `maximum` seconds; `infinity` only where `infinity` stands for "never".
    func seconds(
        _ assignment: Assignment, maximum: Double = 86_400, infinity: Double? = nil
    ) throws(ConfigurationError) -> Double {
        if let span = ConfigurationValues.timeSpan(assignment.value) {
            if span == .infinity, let infinity { return infinity }
            if span <= maximum { return span }
        }
        // As widgetd.conf(5) writes the range: in the largest whole unit ("366d", not "31622400s").
        let whole = Int(maximum)
        let limit = [(86_400, "d"), (3_600, "h"), (60, "min")].first { whole % $0.0 == 0 && whole >= $0.0 }
            .map { "\(whole / $0.0)\($0.1)" } ?? "\(whole)s"
        throw assignment.error(.invalidValue(
            key: assignment.key, value: assignment.value,
            expected: "a time span such as 30s, 5min or 1h, from 0 to \(limit)" + (infinity != nil ? ", or infinity" : "")))
    }

    /// `RequirePasscodeAfterSec=`: a time span up to a year; `0` or `infinity` is off (`nil`).
    func requirePasscodeAfter(_ assignment: Assignment) throws(ConfigurationError) -> Double? {
        let span = try seconds(assignment, maximum: 366 * 86_400, infinity: 0)
        return span > 0 ? span : nil
    }

    func attemptLimit(_ assignment: Assignment) throws(ConfigurationError) -> Int? {
        if ConfigurationValues.boolean(assignment.value) == false { return nil }
        guard let attempts = Int(assignment.value), attempts >= 1 else {
            throw assignment.error(.invalidValue(
                key: assignment.key, value: assignment.value, expected: "a number of attempts, or off"))
        }
        return attempts
    }

    /// A boolean as systemd writes it (`ConfigurationValues.boolean`).
    func boolean(_ assignment: Assignment) throws(ConfigurationError) -> Bool {
        guard let value = ConfigurationValues.boolean(assignment.value) else {
            throw assignment.error(.invalidValue(key: assignment.key, value: assignment.value, expected: "yes or no"))
        }
        return value
    }

    /// `Sessions=`: `auto`, or logind session ids separated by spaces.
    func sessionSelection(_ assignment: Assignment) throws(ConfigurationError) -> SessionSelection {
        if assignment.value == "auto" { return .auto }
        let ids = assignment.value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        // "auto" among ids is a mistake either way: refuse it rather than guess.
        guard ids.allSatisfy({ SessionSelection.isValidSessionID($0) && $0 != "auto" }) else {
            throw assignment.error(.invalidValue(
                key: assignment.key, value: assignment.value,
                expected: "auto, or logind session ids (letters and digits) separated by spaces"))
        }
        return .ids(ids.map(String.init))
    }

    func count(_ assignment: Assignment, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let number = Int(assignment.value), range.contains(number) else {
            throw assignment.error(.invalidValue(
                key: assignment.key, value: assignment.value,
                expected: "a number from \(range.lowerBound) to \(range.upperBound)"))
        }
        return number
    }

    /// A byte size: a number with an optional `K`, `M` or `G` suffix (powers of 1024).
    func size(_ assignment: Assignment, minimum: Int) throws(ConfigurationError) -> Int {
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

    func user(_ assignment: Assignment) throws(ConfigurationError) -> UInt32 {
        if let uid = UInt32(assignment.value) { return uid }
        guard let uid = resolver.userID(named: assignment.value) else {
            throw assignment.error(.unknownUser(assignment.value))
        }
        return uid
    }

    func group(_ assignment: Assignment) throws(ConfigurationError) -> UInt32 {
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
