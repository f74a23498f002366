import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore

/// The daemon's configuration (DESIGN §7): `widgetd.conf`, its drop-ins and the
/// registered providers. Every value has a default, so a missing file is a valid,
/// empty configuration. ``ConfigurationTable`` maps each key to its field.
package struct Configuration: Sendable, Equatable {
    /// `[Daemon] ClassAGraceSec=`: seconds after a lock before the class-A key and
    /// plaintext are purged.
    var classAGraceSeconds: Double = 10
    /// `[Daemon] ActionHoldSec=`: seconds an action that needs an unlock waits for one
    /// (DESIGN §13), on the monotonic clock.
    var actionHoldSeconds: Double = 30
    /// `[Daemon] StaleAfterSec=`: seconds a due reload may go unanswered before the
    /// content is presented `invalidated` (DESIGN §4).
    var staleAfterSeconds: Double = 3600
    /// `[Daemon] WipeAfterFailedAttempts=`: crypto-erase after this many failed
    /// unlocks; `nil` (`off`, the default) never wipes.
    var wipeAfterFailedAttempts: Int? = nil
    /// `[Daemon] PasscodeKDF=`: the Argon2id cost of deriving the passcode key.
    var passcodeKDF: PasscodeKDFStrength = .interactive
    /// `[Daemon] MaxTimelineBytes=`: the largest encoded timeline accepted.
    var maxTimelineBytes: Int = 1 << 20
    /// `[Daemon] MaxConnections=`: clients served at once.
    var maxConnections: Int = 256
    /// `[Daemon] MaxConnectionsPerUser=`: connections one uid may hold; admin and
    /// unlock peers are exempt.
    var maxConnectionsPerUser: Int = 32
    /// `[Daemon] ReservedConnections=`: the last slots of `MaxConnections`, which only
    /// admin and unlock peers may take.
    var reservedConnections: Int = 8
    /// `[Daemon] IdleTimeoutSec=`: seconds after its last complete message (or the end
    /// of its last call) after which a connection with no call in progress and no
    /// stream open is closed; 0 never closes one.
    var idleTimeoutSeconds: Double = 60
    /// `[Daemon] MessageTimeoutSec=`: seconds to finish a message once begun; 0 never closes one.
    var messageTimeoutSeconds: Double = 10
    /// `[Daemon] MaxPendingInputBytes=`: received input all connections together may hold buffered.
    var maxPendingInputBytes: Int = 32 << 20
    /// `[Daemon] MaxMessageBytes=`: the largest Varlink message accepted; it must leave
    /// room for a `PutTimeline` of `maxTimelineBytes` and its JSON escaping.
    var maxMessageBytes: Int = 2 << 20
    /// `[Daemon] MaxCachedTimelines=`: decrypted timelines kept in locked memory.
    var maxCachedTimelines: Int = 1024
    /// `[Daemon] RequireLockedMemory=`: cache decrypted timelines and presentations only
    /// in memory locked in RAM (yes, the default); no runs degraded when locking fails.
    var requireLockedMemory = true
    /// `[Daemon] MaxWidgetsPerProvider=`: the `MaxWidgets=` of every provider whose
    /// registration sets none.
    var maxWidgetsPerProvider: Int = ProviderRegistration.defaultMaxWidgets
    /// `[Daemon] MaxBytesPerProvider=`: the `MaxBytes=` of every provider whose
    /// registration sets none.
    var maxBytesPerProvider: Int = ProviderRegistration.defaultMaxBytes
    /// `[Daemon] KeyProtection=`: what holds the device key and counts passcode attempts
    /// (DESIGN §9): `software` (the default) or `tpm2`.
    var keyProtection: KeyProtection = .software
    /// `[Daemon] TPM2Device=`: the tpm2-tss TCTI string of the TPM that
    /// `KeyProtection=tpm2` uses (`device:/dev/tpmrm0`, `swtpm:path=/run/swtpm/sock`).
    var tpm2Device: String = "device:/dev/tpmrm0"
    /// `[Access] AdminGroup=`: members may do everything.
    var adminGroup: UInt32? = nil
    /// `[Access] UnlockGroup=`: members may `Unlock`, `Lock` and `GetStatus`.
    var unlockGroup: UInt32? = nil
    /// `[Access] HostGroup=`: members may use `io.widgetd.Host` and `GetStatus`.
    var hostGroup: UInt32? = nil
    /// `[Session]`: which logind sessions are followed, and what locks (DESIGN §8).
    var session = SessionOptions()
    /// The registered providers (`providers.d/*.conf`), ordered by id.
    var providers: [ProviderRegistration] = []
    /// What was ignored while loading: unknown keys and sections (warnings), and
    /// provider files that registered nothing because of an error. The daemon logs
    /// each at start and at every reload.
    var problems: [ConfigurationProblem] = []

    /// The defaults: what an absent configuration file means.
    init() {}

    /// The provider registered under `id`, if any.
    func provider(id: String) -> ProviderRegistration? {
        providers.first { $0.id == id }
    }

    /// The server limits this configuration asks for.
    var serverLimits: ServerLimits {
        ServerLimits(
            maxMessageBytes: maxMessageBytes, maxConnections: maxConnections, maxConnectionsPerUser: maxConnectionsPerUser,
            reservedConnections: reservedConnections, idleTimeoutSeconds: idleTimeoutSeconds,
            messageTimeoutSeconds: messageTimeoutSeconds, maxPendingInputBytes: maxPendingInputBytes)
    }
}

/// How expensive the passcode KDF is (libsodium's Argon2id presets).
enum PasscodeKDFStrength: String, Sendable, Equatable, CaseIterable {
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
enum KeyProtection: String, Sendable, Equatable, CaseIterable {
    /// The device key in the state directory or a systemd credential; attempts counted
    /// by widgetd in its keybag.
    case software
    /// The device key and the passcode tangle sealed by the TPM of `TPM2Device=`, the
    /// attempts counted by its dictionary-attack protection, the rollback counter in its
    /// NV memory. A TPM that is missing or failing is a start error, never a fall back.
    case tpm2
}

/// A provider the administrator registered: who may write for it, and its class.
struct ProviderRegistration: Sendable, Equatable {
    /// The provider id, e.g. `com.example.weather`.
    var id: String
    /// `User=`: the uid allowed to write for this provider.
    var uid: UInt32?
    /// `Group=`: members of this gid may write for this provider.
    var gid: UInt32?
    /// `App=`: the Flatpak application id whose sandboxed processes may write for this
    /// provider (with `User=`/`Group=` too, only those whose credentials they admit).
    var app: String?
    /// `DataProtection=`: the class every timeline of this provider is stored under.
    var dataProtection: ProtectionClass
    /// `Unit=`: the systemd user unit that runs this provider, started on demand when an
    /// action or a due reload finds none of its connections watching (DESIGN §14).
    var unit: String?
    /// `MaxWidgets=` (else `[Daemon] MaxWidgetsPerProvider=`): the most widgets this
    /// provider may have stored at once.
    var maxWidgets: Int
    /// `MaxBytes=` (else `[Daemon] MaxBytesPerProvider=`): the most bytes its stored
    /// timeline files may take together, as they lie in `timelines/`.
    var maxBytes: Int
    /// The file that registered it, for messages.
    var file: String

    /// The default `MaxWidgets=`: a provider shows a handful of kinds on a few
    /// surfaces, tens of widgets; 1000 leaves room for instances and stops a runaway
    /// one, which can make thousands a second.
    static let defaultMaxWidgets = 1000
    /// The default `MaxBytes=`, 64 MiB: 64 timelines of the largest size
    /// (`MaxTimelineBytes=`, 1 MiB), or 1000 widgets of 64 KiB each.
    static let defaultMaxBytes = 64 << 20

    /// Creates a registration.
    init(
        id: String, uid: UInt32?, gid: UInt32?, app: String? = nil,
        dataProtection: ProtectionClass = .completeUntilFirstUserAuthentication, unit: String? = nil,
        maxWidgets: Int = defaultMaxWidgets, maxBytes: Int = defaultMaxBytes, file: String = ""
    ) {
        self.id = id
        self.uid = uid
        self.gid = gid
        self.app = app
        self.dataProtection = dataProtection
        self.unit = unit
        self.maxWidgets = maxWidgets
        self.maxBytes = maxBytes
        self.file = file
    }

    /// The quota the store enforces on this provider's writes.
    var quota: ProviderQuota { ProviderQuota(maxWidgets: maxWidgets, maxBytes: maxBytes) }

    /// Whether a peer may write for this provider. An app in a Flatpak sandbox may if it
    /// is this provider's `App=`, and, when `User=` or `Group=` is set as well, its
    /// credentials match them: an application id is only what the sandbox's file says,
    /// and on a system instance another user could write that file into a sandbox of
    /// their own. Any other peer may if it is the `User=` or a member of the `Group=`.
    /// (Whether a peer whose sandbox is unknown is judged here at all is
    /// ``Authorization``'s decision.)
    func admits(_ peer: PeerCredentials) -> Bool {
        if case .flatpak(let appID) = peer.sandbox {
            guard let app, app == appID else { return false }
            return (uid == nil && gid == nil) || admitsCredentials(of: peer)
        }
        return admitsCredentials(of: peer)
    }

    /// Whether the peer is the `User=` or a member of the `Group=`.
    private func admitsCredentials(of peer: PeerCredentials) -> Bool {
        if let uid, peer.uid == uid { return true }
        if let gid, peer.isMember(of: gid) { return true }
        return false
    }
}
