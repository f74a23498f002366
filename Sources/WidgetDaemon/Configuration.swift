import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore

/// The daemon's configuration (DESIGN §7): `widgetd.conf`, its drop-ins and the
/// registered providers. Every value has a default, so a missing file is a valid,
/// empty configuration. ``ConfigurationTable`` maps each key to its field.
public struct Configuration: Sendable, Equatable {
    /// `[Daemon] ClassAGraceSec=`: seconds after a lock before the class-A key and
    /// plaintext are purged.
    public var classAGraceSeconds: Double = 10
    /// `[Daemon] WipeAfterFailedAttempts=`: crypto-erase after this many failed
    /// unlocks; `nil` (`off`, the default) never wipes.
    public var wipeAfterFailedAttempts: Int? = nil
    /// `[Daemon] PasscodeKDF=`: the Argon2id cost of deriving the passcode key.
    public var passcodeKDF: PasscodeKDFStrength = .interactive
    /// `[Daemon] MaxTimelineBytes=`: the largest encoded timeline accepted.
    public var maxTimelineBytes: Int = 1 << 20
    /// `[Daemon] MaxConnections=`: clients served at once.
    public var maxConnections: Int = 256
    /// `[Daemon] MaxConnectionsPerUser=`: connections one uid may hold; admin and
    /// unlock peers are exempt.
    public var maxConnectionsPerUser: Int = 32
    /// `[Daemon] ReservedConnections=`: the last slots of `MaxConnections`, which only
    /// admin and unlock peers may take.
    public var reservedConnections: Int = 8
    /// `[Daemon] IdleTimeoutSec=`: seconds after its last complete message (or the end
    /// of its last call) after which a connection with no call in progress and no
    /// stream open is closed; 0 never closes one.
    public var idleTimeoutSeconds: Double = 60
    /// `[Daemon] MessageTimeoutSec=`: seconds to finish a message once begun; 0 never closes one.
    public var messageTimeoutSeconds: Double = 10
    /// `[Daemon] MaxPendingInputBytes=`: received input all connections together may hold buffered.
    public var maxPendingInputBytes: Int = 32 << 20
    /// `[Daemon] MaxMessageBytes=`: the largest Varlink message accepted; it must leave
    /// room for a `PutTimeline` of `maxTimelineBytes` and its JSON escaping.
    public var maxMessageBytes: Int = 2 << 20
    /// `[Daemon] MaxCachedTimelines=`: decrypted timelines kept in locked memory.
    public var maxCachedTimelines: Int = 1024
    /// `[Daemon] RequireLockedMemory=`: cache decrypted timelines and presentations only
    /// in memory locked in RAM (yes, the default); no runs degraded when locking fails.
    public var requireLockedMemory = true
    /// `[Daemon] MaxWidgetsPerProvider=`: the `MaxWidgets=` of every provider whose
    /// registration sets none.
    public var maxWidgetsPerProvider: Int = ProviderRegistration.defaultMaxWidgets
    /// `[Daemon] MaxBytesPerProvider=`: the `MaxBytes=` of every provider whose
    /// registration sets none.
    public var maxBytesPerProvider: Int = ProviderRegistration.defaultMaxBytes
    /// `[Daemon] KeyProtection=`: what holds the device key and counts passcode attempts
    /// (DESIGN §9): `software` (the default) or `tpm2`.
    public var keyProtection: KeyProtection = .software
    /// `[Daemon] TPM2Device=`: the tpm2-tss TCTI string of the TPM that
    /// `KeyProtection=tpm2` uses (`device:/dev/tpmrm0`, `swtpm:path=/run/swtpm/sock`).
    public var tpm2Device: String = "device:/dev/tpmrm0"
    /// `[Access] AdminGroup=`: members may do everything.
    public var adminGroup: UInt32? = nil
    /// `[Access] UnlockGroup=`: members may `Unlock`, `Lock` and `GetStatus`.
    public var unlockGroup: UInt32? = nil
    /// `[Access] HostGroup=`: members may use `io.widgetd.Host` and `GetStatus`.
    public var hostGroup: UInt32? = nil
    /// `[Session]`: which logind sessions are followed, and what locks (DESIGN §8).
    public var session = SessionOptions()
    /// The registered providers (`providers.d/*.conf`), ordered by id.
    public var providers: [ProviderRegistration] = []
    /// What was ignored while loading: unknown keys and sections (warnings), and
    /// provider files that registered nothing because of an error. The daemon logs
    /// each at start and at every reload.
    public var problems: [ConfigurationProblem] = []

    /// The defaults: what an absent configuration file means.
    public init() {}

    /// The provider registered under `id`, if any.
    public func provider(id: String) -> ProviderRegistration? {
        providers.first { $0.id == id }
    }

    /// The server limits this configuration asks for.
    public var serverLimits: ServerLimits {
        ServerLimits(
            maxMessageBytes: maxMessageBytes, maxConnections: maxConnections, maxConnectionsPerUser: maxConnectionsPerUser,
            reservedConnections: reservedConnections, idleTimeoutSeconds: idleTimeoutSeconds,
            messageTimeoutSeconds: messageTimeoutSeconds, maxPendingInputBytes: maxPendingInputBytes)
    }
}

/// How expensive the passcode KDF is (libsodium's Argon2id presets).
public enum PasscodeKDFStrength: String, Sendable, Equatable, CaseIterable {
    /// The cheapest parameters libsodium accepts: for tests only, never for a device.
    case minimum
    /// About 100 ms here: the default.
    case interactive
    /// About 0.7 s.
    case moderate
    /// Several seconds and 1 GiB of memory.
    case sensitive
}

/// What holds the device key and counts passcode attempts (`[Daemon] KeyProtection=`).
public enum KeyProtection: String, Sendable, Equatable, CaseIterable {
    /// The device key in the state directory or a systemd credential; attempts counted
    /// by widgetd in its keybag.
    case software
    /// The device key and the passcode tangle sealed by the TPM of `TPM2Device=`, the
    /// attempts counted by its dictionary-attack protection, the rollback counter in its
    /// NV memory. A TPM that is missing or failing is a start error, never a fall back.
    case tpm2
}

/// A provider the administrator registered: who may write for it, and its class.
public struct ProviderRegistration: Sendable, Equatable {
    /// The provider id, e.g. `com.example.weather`.
    public var id: String
    /// `User=`: the uid allowed to write for this provider.
    public var uid: UInt32?
    /// `Group=`: members of this gid may write for this provider.
    public var gid: UInt32?
    /// `DataProtection=`: the class every timeline of this provider is stored under.
    public var dataProtection: ProtectionClass
    /// `MaxWidgets=` (else `[Daemon] MaxWidgetsPerProvider=`): the most widgets this
    /// provider may have stored at once.
    public var maxWidgets: Int
    /// `MaxBytes=` (else `[Daemon] MaxBytesPerProvider=`): the most bytes its stored
    /// timeline files may take together, as they lie in `timelines/`.
    public var maxBytes: Int
    /// The file that registered it, for messages.
    public var file: String

    /// The default `MaxWidgets=`: a provider shows a handful of kinds on a few
    /// surfaces, tens of widgets; 1000 leaves room for instances and stops a runaway
    /// one, which can make thousands a second.
    public static let defaultMaxWidgets = 1000
    /// The default `MaxBytes=`, 64 MiB: 64 timelines of the largest size
    /// (`MaxTimelineBytes=`, 1 MiB), or 1000 widgets of 64 KiB each.
    public static let defaultMaxBytes = 64 << 20

    /// Creates a registration.
    public init(
        id: String, uid: UInt32?, gid: UInt32?,
        dataProtection: ProtectionClass = .completeUntilFirstUserAuthentication,
        maxWidgets: Int = defaultMaxWidgets, maxBytes: Int = defaultMaxBytes, file: String = ""
    ) {
        self.id = id
        self.uid = uid
        self.gid = gid
        self.dataProtection = dataProtection
        self.maxWidgets = maxWidgets
        self.maxBytes = maxBytes
        self.file = file
    }

    /// The quota the store enforces on this provider's writes.
    public var quota: ProviderQuota { ProviderQuota(maxWidgets: maxWidgets, maxBytes: maxBytes) }

    /// Whether a peer may write for this provider: it is its `User=`, or a member of its `Group=`.
    public func admits(_ peer: PeerCredentials) -> Bool {
        if let uid, peer.uid == uid { return true }
        if let gid, peer.isMember(of: gid) { return true }
        return false
    }
}
