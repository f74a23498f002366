import WidgetModel

/// What a configuration table writes into; an empty value (`Key=`) resets a field to
/// its value in ``defaults``.
protocol ConfigurationTarget: Sendable {
    /// Every field at its default: what an absent key means.
    static var defaults: Self { get }
}

extension Configuration: ConfigurationTarget {
    static var defaults: Configuration { Configuration() }
}

/// One key of a configuration file: its section and name, how its value is read, the
/// field it writes, the default widgetd.conf(5) shows and what it is for, as
/// systemd-homed's gperf file has one row per key with its parser and its field.
///
/// The parser applies the rows and ``ConfigurationParser/check(main:dropIns:providers:)``
/// reports through them; a test checks that widgetd.conf(5) lists exactly these keys,
/// each with this default, and that the sample `config/widgetd.conf` shows every key
/// of `widgetd.conf` with a value meaning its default.
struct ConfigurationKey<Target: ConfigurationTarget>: Sendable {
    /// The section, without brackets (`Daemon`).
    let section: String
    /// The key, without `=` (`ClassAGraceSec`).
    let name: String
    /// The default as widgetd.conf(5) writes it after "Default:", or `nil` where the
    /// manual shows none (the key is unset by default, or required).
    let shownDefault: String?
    /// What the key sets, in one line.
    let doc: String
    /// Reads the assignment's value into its field of the target.
    let apply: @Sendable (ConfigurationParser, ConfigurationParser.Assignment, inout Target) throws(ConfigurationError)
        -> Void

    /// A key writing `field`: an empty value resets it to the field's value in
    /// ``ConfigurationTarget/defaults`` (unless `emptyResets` is `false`: then `parse`
    /// judges the empty value too); any other value is what `parse` makes of it.
    init<Value>(
        _ section: String, _ name: String, _ field: WritableKeyPath<Target, Value> & Sendable,
        default shownDefault: String?, emptyResets: Bool = true, _ doc: String,
        parse: @escaping @Sendable (ConfigurationParser, ConfigurationParser.Assignment) throws(ConfigurationError)
            -> Value
    ) {
        self.section = section
        self.name = name
        self.shownDefault = shownDefault
        self.doc = doc
        apply = { parser, assignment, target throws(ConfigurationError) in
            if emptyResets, assignment.value.isEmpty {
                target[keyPath: field] = Target.defaults[keyPath: field]
            } else {
                target[keyPath: field] = try parse(parser, assignment)
            }
        }
    }
}

/// A `[Provider]` section of a `providers.d` file as its keys are read; the parser
/// turns it into a ``ProviderRegistration`` once the section is complete.
struct ProviderDraft: ConfigurationTarget {
    /// The line of the `[Provider]` header, for a section missing a key.
    var headerLine = 0
    /// `Id=` and its line.
    var id: (String, line: Int)?
    /// `User=`.
    var uid: UInt32?
    /// `Group=`.
    var gid: UInt32?
    /// `DataProtection=`.
    var dataProtection: ProtectionClass = .completeUntilFirstUserAuthentication
    /// `MaxWidgets=`; `nil` takes `[Daemon] MaxWidgetsPerProvider=`.
    var maxWidgets: Int?
    /// `MaxBytes=`; `nil` takes `[Daemon] MaxBytesPerProvider=`.
    var maxBytes: Int?

    static var defaults: ProviderDraft { ProviderDraft() }
}

/// Every configuration key, once.
///
/// Adding a key is a field of ``Configuration``, one row here, its entry in
/// widgetd.conf(5) and its commented line in `config/widgetd.conf`; the table tests
/// fail until all four agree.
enum ConfigurationTable {
    /// The sections of `widgetd.conf` and its drop-ins. A key of another section is
    /// ignored with the section's warning.
    static let sections = ["Daemon", "Access", "Session"]

    /// The keys of `widgetd.conf` and its drop-ins, in the manual's order.
    static let keys: [ConfigurationKey<Configuration>] = [
        .init("Daemon", "ClassAGraceSec", \.classAGraceSeconds, default: "10",
              "How long after a lock the class-A key and plaintext are kept.") { parser, assignment throws(ConfigurationError) in
            try parser.seconds(assignment)
        },
        .init("Daemon", "WipeAfterFailedAttempts", \.wipeAfterFailedAttempts, default: "off",
              "Crypto-erase every timeline after this many failed unlocks.") { parser, assignment throws(ConfigurationError) in
            try parser.attemptLimit(assignment)
        },
        .init("Daemon", "PasscodeKDF", \.passcodeKDF, default: "interactive",
              "The Argon2id cost of deriving the passcode key.") { _, assignment throws(ConfigurationError) in
            guard let strength = PasscodeKDFStrength(rawValue: assignment.value) else {
                throw assignment.error(.invalidValue(
                    key: assignment.key, value: assignment.value, expected: "interactive, moderate, sensitive or minimum"))
            }
            return strength
        },
        .init("Daemon", "MaxTimelineBytes", \.maxTimelineBytes, default: "1M",
              "The largest timeline a provider may write.") { parser, assignment throws(ConfigurationError) in
            try parser.size(assignment, minimum: 1024)
        },
        .init("Daemon", "MaxMessageBytes", \.maxMessageBytes, default: "2M",
              "The largest Varlink message accepted.") { parser, assignment throws(ConfigurationError) in
            try parser.size(assignment, minimum: 1024)
        },
        .init("Daemon", "MaxConnections", \.maxConnections, default: "256",
              "Clients served at once.") { parser, assignment throws(ConfigurationError) in
            try parser.count(assignment, in: 1...65_536)
        },
        .init("Daemon", "MaxConnectionsPerUser", \.maxConnectionsPerUser, default: "32",
              "Connections one uid may hold; admin and unlock peers are exempt.") {
            parser, assignment throws(ConfigurationError) in try parser.count(assignment, in: 1...65_536)
        },
        .init("Daemon", "ReservedConnections", \.reservedConnections, default: "8",
              "The last connection slots, for admin and unlock peers only.") {
            parser, assignment throws(ConfigurationError) in try parser.count(assignment, in: 0...65_536)
        },
        .init("Daemon", "IdleTimeoutSec", \.idleTimeoutSeconds, default: "60",
              "How long an idle connection is kept open; 0 or infinity: always.") {
            parser, assignment throws(ConfigurationError) in try parser.seconds(assignment, infinity: 0)
        },
        .init("Daemon", "MessageTimeoutSec", \.messageTimeoutSeconds, default: "10",
              "Time a client has to finish a message once begun; 0: no deadline.") {
            parser, assignment throws(ConfigurationError) in try parser.seconds(assignment, infinity: 0)
        },
        .init("Daemon", "MaxPendingInputBytes", \.maxPendingInputBytes, default: "32M",
              "Received input all connections together may hold buffered.") {
            parser, assignment throws(ConfigurationError) in try parser.size(assignment, minimum: 64 << 10)
        },
        .init("Daemon", "MaxCachedTimelines", \.maxCachedTimelines, default: "1024",
              "Decrypted timelines kept in locked memory.") { parser, assignment throws(ConfigurationError) in
            try parser.count(assignment, in: 1...1_000_000)
        },
        .init("Daemon", "RequireLockedMemory", \.requireLockedMemory, default: "yes",
              "Cache decrypted content only in memory locked in RAM.") { parser, assignment throws(ConfigurationError) in
            try parser.boolean(assignment)
        },
        .init("Daemon", "MaxWidgetsPerProvider", \.maxWidgetsPerProvider, default: "1000",
              "The MaxWidgets= of every provider that sets none.") { parser, assignment throws(ConfigurationError) in
            try parser.count(assignment, in: ConfigurationParser.widgetQuotaRange)
        },
        .init("Daemon", "MaxBytesPerProvider", \.maxBytesPerProvider, default: "64M",
              "The MaxBytes= of every provider that sets none.") { parser, assignment throws(ConfigurationError) in
            try parser.size(assignment, minimum: ConfigurationParser.minimumByteQuota)
        },
        .init("Daemon", "KeyProtection", \.keyProtection, default: "software",
              "What holds the device key and counts passcode attempts.") { _, assignment throws(ConfigurationError) in
            guard let protection = KeyProtection(rawValue: assignment.value) else {
                throw assignment.error(.invalidValue(key: assignment.key, value: assignment.value, expected: "software or tpm2"))
            }
            return protection
        },
        .init("Daemon", "TPM2Device", \.tpm2Device, default: "device:/dev/tpmrm0",
              "The TCTI string of the TPM that KeyProtection=tpm2 uses.") { _, assignment throws(ConfigurationError) in
            guard ConfigurationParser.isTCTIString(assignment.value) else {
                throw assignment.error(.invalidValue(
                    key: assignment.key, value: assignment.value,
                    expected: "a tpm2-tss TCTI string NAME[:CONFIG], e.g. device:/dev/tpmrm0 or swtpm:path=/run/swtpm/sock"))
            }
            return assignment.value
        },
        .init("Access", "AdminGroup", \.adminGroup, default: nil,
              "Members may do everything.") { parser, assignment throws(ConfigurationError) in
            try parser.group(assignment)
        },
        .init("Access", "UnlockGroup", \.unlockGroup, default: nil,
              "Members may Unlock, Lock and GetStatus.") { parser, assignment throws(ConfigurationError) in
            try parser.group(assignment)
        },
        .init("Access", "HostGroup", \.hostGroup, default: nil,
              "Members may use io.widgetd.Host and GetStatus.") { parser, assignment throws(ConfigurationError) in
            try parser.group(assignment)
        },
        .init("Session", "LockOnSessionLock", \.session.lockOnSessionLock, default: "yes",
              "A watched session's lock locks.") { parser, assignment throws(ConfigurationError) in
            try parser.boolean(assignment)
        },
        .init("Session", "LockOnSleep", \.session.lockOnSleep, default: "yes",
              "Going to sleep locks and purges classes A and B at once.") { parser, assignment throws(ConfigurationError) in
            try parser.boolean(assignment)
        },
        .init("Session", "LockOnSessionEnd", \.session.lockOnSessionEnd, default: "yes",
              "The end of the last watched session locks.") { parser, assignment throws(ConfigurationError) in
            try parser.boolean(assignment)
        },
        .init("Session", "Sessions", \.session.sessions, default: "auto",
              "Which logind sessions are watched.") { parser, assignment throws(ConfigurationError) in
            try parser.sessionSelection(assignment)
        },
        .init("Session", "RequirePasscodeAfterSec", \.session.requirePasscodeAfter, default: "72h",
              "Locked this long, class C is purged too; 0 or infinity: never.") {
            parser, assignment throws(ConfigurationError) in try parser.requirePasscodeAfter(assignment)
        },
    ]

    /// The keys of a `[Provider]` section. An unknown one is an error, not a warning:
    /// a misspelt `DataProtection=` would otherwise store the provider's timelines
    /// under the default class, weaker than the one meant.
    static let providerKeys: [ConfigurationKey<ProviderDraft>] = [
        // An empty Id= is an invalid id, not a reset: the section would otherwise be
        // reported as missing the Id= it has.
        .init("Provider", "Id", \.id, default: nil, emptyResets: false,
              "The provider id.") { _, assignment throws(ConfigurationError) in
            guard WidgetID.isValidProviderID(assignment.value) else {
                throw assignment.error(.invalidProviderID(assignment.value))
            }
            return (assignment.value, assignment.line)
        },
        .init("Provider", "User", \.uid, default: nil,
              "The user allowed to write for the provider.") { parser, assignment throws(ConfigurationError) in
            try parser.user(assignment)
        },
        .init("Provider", "Group", \.gid, default: nil,
              "A group whose members may write for the provider.") { parser, assignment throws(ConfigurationError) in
            try parser.group(assignment)
        },
        .init("Provider", "DataProtection", \.dataProtection, default: "completeUntilFirstUserAuthentication",
              "The class every timeline of the provider is stored under.") { _, assignment throws(ConfigurationError) in
            guard let protection = ProtectionClass(rawValue: assignment.value) else {
                throw assignment.error(.invalidValue(
                    key: assignment.key, value: assignment.value,
                    expected: ProtectionClass.allCases.map(\.rawValue).joined(separator: ", ")))
            }
            return protection
        },
        .init("Provider", "MaxWidgets", \.maxWidgets, default: "MaxWidgetsPerProvider=",
              "The most widgets the provider may have stored at once.") { parser, assignment throws(ConfigurationError) in
            try parser.count(assignment, in: ConfigurationParser.widgetQuotaRange)
        },
        .init("Provider", "MaxBytes", \.maxBytes, default: "MaxBytesPerProvider=",
              "The most bytes the provider's stored timeline files may take.") {
            parser, assignment throws(ConfigurationError) in try parser.size(assignment, minimum: ConfigurationParser.minimumByteQuota)
        },
    ]

    /// The row of `name` in `section` of `widgetd.conf`, if it has one.
    static func key(section: String, name: String) -> ConfigurationKey<Configuration>? {
        keys.first { $0.section == section && $0.name == name }
    }

    /// The row of `name` in a `[Provider]` section, if it has one.
    static func providerKey(name: String) -> ConfigurationKey<ProviderDraft>? {
        providerKeys.first { $0.name == name }
    }
}
