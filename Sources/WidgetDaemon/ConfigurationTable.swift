import WidgetModel
import WidgetdPOSIX

/// What a configuration table writes into; an empty value (`Key=`) resets a field to
/// its value in ``defaults``.
protocol ConfigurationTarget: Sendable {
    /// Every field at its default: what an absent key means.
    static var defaults: Self { get }
}

extension Configuration: ConfigurationTarget {
    static var defaults: Configuration { Configuration() }
}

/// One key of a configuration file: its section and name, the field it writes, how its
/// value is read, the default widgetd.conf(5) shows and what it is for, as
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

    /// A key writing `field` with what `value` reads; an empty value resets the field to
    /// its value in ``ConfigurationTarget/defaults``, unless `emptyResets` is `false`:
    /// then `value` judges the empty value too.
    init<Value>(
        _ section: String, _ name: String, _ field: WritableKeyPath<Target, Value> & Sendable,
        _ value: ConfigurationValue<Value>, default shownDefault: String?, emptyResets: Bool = true, _ doc: String
    ) {
        self.section = section
        self.name = name
        self.shownDefault = shownDefault
        self.doc = doc
        apply = { parser, assignment, target throws(ConfigurationError) in
            if emptyResets, assignment.value.isEmpty {
                target[keyPath: field] = Target.defaults[keyPath: field]
            } else {
                target[keyPath: field] = try value.parse(parser, assignment)
            }
        }
    }
}

/// How a key's value is read (systemd's `config_parse_*`): the value parsers of
/// ``ConfigurationParser``, each with the message naming what it expected.
struct ConfigurationValue<Value>: Sendable {
    /// Reads a non-empty value, or throws naming the assignment's file and line.
    let parse: @Sendable (ConfigurationParser, ConfigurationParser.Assignment) throws(ConfigurationError) -> Value
}

extension ConfigurationValue where Value == Double {
    /// A time span up to a day; `infinity` reads as `infinity` where given (never).
    static func seconds(infinity: Double? = nil) -> Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.seconds(assignment, infinity: infinity) }
    }
}

extension ConfigurationValue where Value == Double? {
    /// `RequirePasscodeAfterSec=`: a time span up to 366 days; `0` or `infinity` is off.
    static var passcodeAfter: Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.requirePasscodeAfter(assignment) }
    }
}

extension ConfigurationValue where Value == Int {
    /// A whole number in `range`.
    static func count(in range: ClosedRange<Int>) -> Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.count(assignment, in: range) }
    }

    /// A byte size from `minimum` to 1G, with an optional `K`, `M` or `G` suffix.
    static func size(minimum: Int) -> Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.size(assignment, minimum: minimum) }
    }
}

extension ConfigurationValue where Value == Int? {
    /// A whole number in `range`; the field's `nil` is the empty value's.
    static func count(in range: ClosedRange<Int>) -> Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.count(assignment, in: range) }
    }

    /// A byte size from `minimum` to 1G; the field's `nil` is the empty value's.
    static func size(minimum: Int) -> Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.size(assignment, minimum: minimum) }
    }

    /// `WipeAfterFailedAttempts=`: a number of attempts from 1, or a false boolean (off).
    static var attemptLimit: Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.attemptLimit(assignment) }
    }
}

extension ConfigurationValue where Value == Bool {
    /// A boolean as systemd writes it.
    static var boolean: Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.boolean(assignment) }
    }
}

extension ConfigurationValue where Value == UInt32? {
    /// A group name or numeric gid.
    static var group: Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.group(assignment) }
    }

    /// A user name or numeric uid.
    static var user: Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.user(assignment) }
    }
}

extension ConfigurationValue where Value == String {
    /// A tpm2-tss TCTI string, `NAME[:CONFIG]`.
    static var tcti: Self {
        Self { _, assignment throws(ConfigurationError) in
            guard ConfigurationParser.isTCTIString(assignment.value) else {
                throw assignment.error(.invalidValue(
                    key: assignment.key, value: assignment.value,
                    expected: "a tpm2-tss TCTI string NAME[:CONFIG], e.g. device:/dev/tpmrm0 or swtpm:path=/run/swtpm/sock"))
            }
            return assignment.value
        }
    }
}

extension ConfigurationValue where Value == SessionSelection {
    /// `auto`, or logind session ids separated by spaces.
    static var sessions: Self {
        Self { parser, assignment throws(ConfigurationError) in try parser.sessionSelection(assignment) }
    }
}

extension ConfigurationValue where Value: RawRepresentable<String> & Sendable {
    /// One of the enumeration's raw values; `expected` lists them for the message.
    static func choice(expected: String) -> Self {
        Self { _, assignment throws(ConfigurationError) in
            guard let choice = Value(rawValue: assignment.value) else {
                throw assignment.error(.invalidValue(key: assignment.key, value: assignment.value, expected: expected))
            }
            return choice
        }
    }
}

/// A `[Provider]` section of a `providers.d` file as its keys are read; the parser
/// turns it into a ``ProviderRegistration`` once the section is complete.
struct ProviderDraft: ConfigurationTarget {
    /// The line of the `[Provider]` header, for a section missing a key.
    var headerLine = 0
    /// A provider id and the line that set it.
    struct IDLine: Sendable {
        let value: String
        let line: Int
    }

    /// `Id=` and its line.
    var id: IDLine?
    /// `User=`.
    var uid: UInt32?
    /// `Group=`.
    var gid: UInt32?
    /// `App=`.
    var app: String?
    /// `DataProtection=`.
    var dataProtection: ProtectionClass = .completeUntilFirstUserAuthentication
    /// `Unit=`.
    var unit: String?
    /// `MaxWidgets=`; `nil` takes `[Daemon] MaxWidgetsPerProvider=`.
    var maxWidgets: Int?
    /// `MaxBytes=`; `nil` takes `[Daemon] MaxBytesPerProvider=`.
    var maxBytes: Int?

    static var defaults: ProviderDraft { ProviderDraft() }
}

extension ConfigurationValue where Value == String? {
    /// `App=`: a valid Flatpak application id (`com.example.Weather`).
    static var applicationID: Self {
        Self { _, assignment throws(ConfigurationError) in
            guard FlatpakInfo.isValidApplicationID(assignment.value) else {
                throw assignment.error(.invalidValue(
                    key: assignment.key, value: assignment.value,
                    expected: "a Flatpak application id: three or more dot-separated elements of letters, digits, '_' and '-', "
                        + "none beginning with a digit, at most 255 bytes"))
            }
            return assignment.value
        }
    }

    /// `Unit=`: a systemd service unit's name (`widgetd-provider-media.service`).
    static var serviceUnit: Self {
        Self { _, assignment throws(ConfigurationError) in
            guard ProviderRegistration.isValidServiceUnit(assignment.value) else {
                throw assignment.error(.invalidValue(
                    key: assignment.key, value: assignment.value,
                    expected: "a service unit's name ending in .service: letters, digits and ':', '_', '.', '-', '@', at most 255 bytes"))
            }
            return assignment.value
        }
    }
}

extension ConfigurationValue where Value == ProviderDraft.IDLine? {
    /// `Id=`: a valid provider id (an empty one is not), with its line.
    static var providerID: Self {
        Self { _, assignment throws(ConfigurationError) in
            guard WidgetID.isValidProviderID(assignment.value) else {
                throw assignment.error(.invalidProviderID(assignment.value))
            }
            return ProviderDraft.IDLine(value: assignment.value, line: assignment.line)
        }
    }
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
        .init("Daemon", "ClassAGraceSec", \.classAGraceSeconds, .seconds(), default: "10",
              "How long after a lock the class-A key and plaintext are kept."),
        .init("Daemon", "ActionHoldSec", \.actionHoldSeconds, .seconds(), default: "30",
              "How long an action that needs an unlock waits for one."),
        .init("Daemon", "StaleAfterSec", \.staleAfterSeconds, .seconds(), default: "1h",
              "How long a due reload may go unanswered before hosts show \"out of date\"."),
        .init("Daemon", "WipeAfterFailedAttempts", \.wipeAfterFailedAttempts, .attemptLimit, default: "off",
              "Crypto-erase every timeline after this many failed unlocks."),
        .init("Daemon", "PasscodeKDF", \.passcodeKDF,
              .choice(expected: "interactive, moderate, sensitive or minimum"), default: "interactive",
              "The Argon2id cost of deriving the passcode key."),
        .init("Daemon", "MaxTimelineBytes", \.maxTimelineBytes, .size(minimum: 1024), default: "1M",
              "The largest timeline a provider may write."),
        .init("Daemon", "MaxMessageBytes", \.maxMessageBytes, .size(minimum: 1024), default: "2M",
              "The largest Varlink message accepted."),
        .init("Daemon", "MaxConnections", \.maxConnections, .count(in: 1...65_536), default: "256",
              "Clients served at once."),
        .init("Daemon", "MaxConnectionsPerUser", \.maxConnectionsPerUser, .count(in: 1...65_536), default: "32",
              "Connections one uid may hold; admin and unlock peers are exempt."),
        .init("Daemon", "ReservedConnections", \.reservedConnections, .count(in: 0...65_536), default: "8",
              "The last connection slots, for admin and unlock peers only."),
        .init("Daemon", "IdleTimeoutSec", \.idleTimeoutSeconds, .seconds(infinity: 0), default: "60",
              "How long an idle connection is kept open; 0 or infinity: no limit."),
        .init("Daemon", "MessageTimeoutSec", \.messageTimeoutSeconds, .seconds(infinity: 0), default: "10",
              "Time a client has to finish a message once begun; 0: no deadline."),
        .init("Daemon", "MaxPendingInputBytes", \.maxPendingInputBytes, .size(minimum: 64 << 10), default: "32M",
              "Received input all connections together may hold buffered."),
        .init("Daemon", "MaxCachedTimelines", \.maxCachedTimelines, .count(in: 1...1_000_000), default: "1024",
              "Decrypted timelines kept in locked memory."),
        .init("Daemon", "RequireLockedMemory", \.requireLockedMemory, .boolean, default: "yes",
              "Cache decrypted content only in memory locked in RAM."),
        .init("Daemon", "MaxWidgetsPerProvider", \.maxWidgetsPerProvider,
              .count(in: ConfigurationParser.widgetQuotaRange), default: "1000",
              "The MaxWidgets= of every provider that sets none."),
        .init("Daemon", "MaxBytesPerProvider", \.maxBytesPerProvider,
              .size(minimum: ConfigurationParser.minimumByteQuota), default: "64M",
              "The MaxBytes= of every provider that sets none."),
        .init("Daemon", "KeyProtection", \.keyProtection, .choice(expected: "software or tpm2"), default: "software",
              "What holds the device key and counts passcode attempts."),
        .init("Daemon", "TPM2Device", \.tpm2Device, .tcti, default: "device:/dev/tpmrm0",
              "The TCTI string of the TPM that KeyProtection=tpm2 uses."),
        .init("Access", "AdminGroup", \.adminGroup, .group, default: nil,
              "Members may do everything."),
        .init("Access", "UnlockGroup", \.unlockGroup, .group, default: nil,
              "Members may Unlock, Lock and GetStatus."),
        .init("Access", "HostGroup", \.hostGroup, .group, default: nil,
              "Members may use io.widgetd.Host and GetStatus."),
        .init("Session", "LockOnSessionLock", \.session.lockOnSessionLock, .boolean, default: "yes",
              "A watched session's lock locks."),
        .init("Session", "LockOnSleep", \.session.lockOnSleep, .boolean, default: "yes",
              "Going to sleep locks and purges classes A and B at once."),
        .init("Session", "LockOnSessionEnd", \.session.lockOnSessionEnd, .boolean, default: "yes",
              "The end of the last watched session locks."),
        .init("Session", "Sessions", \.session.sessions, .sessions, default: "auto",
              "Which logind sessions are watched."),
        .init("Session", "RequirePasscodeAfterSec", \.session.requirePasscodeAfter, .passcodeAfter, default: "72h",
              "Locked this long, class C is purged too; 0 or infinity: never."),
    ]

    /// The keys of a `[Provider]` section. An unknown one is an error, not a warning:
    /// a misspelt `DataProtection=` would otherwise store the provider's timelines
    /// under the default class, weaker than the one meant.
    static let providerKeys: [ConfigurationKey<ProviderDraft>] = [
        // An empty Id= is an invalid id, not a reset: the section would otherwise be
        // reported as missing the Id= it has.
        .init("Provider", "Id", \.id, .providerID, default: nil, emptyResets: false,
              "The provider id."),
        .init("Provider", "User", \.uid, .user, default: nil,
              "The user allowed to write for the provider."),
        .init("Provider", "Group", \.gid, .group, default: nil,
              "A group whose members may write for the provider."),
        .init("Provider", "App", \.app, .applicationID, default: nil,
              "The Flatpak application id of the sandboxed app that writes for the provider."),
        .init("Provider", "DataProtection", \.dataProtection,
              .choice(expected: ProtectionClass.allCases.map(\.rawValue).joined(separator: ", ")),
              default: "completeUntilFirstUserAuthentication",
              "The class every timeline of the provider is stored under."),
        .init("Provider", "Unit", \.unit, .serviceUnit, default: nil,
              "The systemd user unit started when an action or a due reload finds the provider not running."),
        .init("Provider", "MaxWidgets", \.maxWidgets, .count(in: ConfigurationParser.widgetQuotaRange),
              default: "MaxWidgetsPerProvider=",
              "The most widgets the provider may have stored at once."),
        .init("Provider", "MaxBytes", \.maxBytes, .size(minimum: ConfigurationParser.minimumByteQuota),
              default: "MaxBytesPerProvider=",
              "The most bytes the provider's stored timeline files may take."),
    ]

    /// The row of `name` in `section` of `widgetd.conf`, if it has one.
    static func key(section: String, name: String) -> ConfigurationKey<Configuration>? {
        keys.first { $0.section == section && $0.name == name }
    }

    /// The key names of `section` (`Provider` included), for "did you mean".
    static func keyNames(section: String) -> [String] {
        section == "Provider" ? providerKeys.map(\.name) : keys.filter { $0.section == section }.map(\.name)
    }

    /// The row of `name` in a `[Provider]` section, if it has one.
    static func providerKey(name: String) -> ConfigurationKey<ProviderDraft>? {
        providerKeys.first { $0.name == name }
    }
}
