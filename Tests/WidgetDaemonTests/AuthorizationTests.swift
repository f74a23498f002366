import Testing
import WidgetdPOSIX
import WidgetModel

@testable import WidgetDaemon

/// DESIGN §6 as a table: each role, each method, allowed or not.
@Suite struct AuthorizationTests {
    static let configuration: Configuration = {
        var configuration = Configuration()
        configuration.adminGroup = 100
        configuration.unlockGroup = 200
        configuration.hostGroup = 300
        configuration.providers = [
            ProviderRegistration(id: "com.example.weather", uid: 1000, gid: nil, dataProtection: .none, file: "w.conf"),
            ProviderRegistration(id: "com.example.mail", uid: nil, gid: 400, dataProtection: .complete, file: "m.conf"),
        ]
        return configuration
    }()

    let authorization = Authorization(configuration: Self.configuration, daemonUID: 999)

    enum Role: String, CaseIterable, Sendable {
        case root, daemonUser, adminGroup, unlockGroup, hostGroup, providerUser, providerGroup, stranger

        var peer: PeerCredentials {
            switch self {
            case .root: PeerCredentials(pid: 1, uid: 0, gid: 0)
            case .daemonUser: PeerCredentials(pid: 1, uid: 999, gid: 999)
            case .adminGroup: PeerCredentials(pid: 1, uid: 5000, gid: 5000, groups: [100])
            case .unlockGroup: PeerCredentials(pid: 1, uid: 5000, gid: 200)
            case .hostGroup: PeerCredentials(pid: 1, uid: 5000, gid: 5000, groups: [300])
            case .providerUser: PeerCredentials(pid: 1, uid: 1000, gid: 1000)
            case .providerGroup: PeerCredentials(pid: 1, uid: 5000, gid: 5000, groups: [400])
            case .stranger: PeerCredentials(pid: 1, uid: 5000, gid: 5000, groups: [5001])
            }
        }
    }

    static let methods = [
        "io.widgetd.Device.GetStatus", "io.widgetd.Device.Unlock", "io.widgetd.Device.Lock",
        "io.widgetd.Device.SetPasscode", "io.widgetd.Device.Wipe", "io.widgetd.Device.GetSettings",
        "io.widgetd.Device.SetSettings", "io.widgetd.Device.Monitor",
        "io.widgetd.Provider.PutTimeline", "io.widgetd.Provider.GetTimeline", "io.widgetd.Provider.WatchReloads",
        "io.widgetd.Host.ListWidgets", "io.widgetd.Host.GetPresentation", "io.widgetd.Host.Watch",
        "io.widgetd.Host.ReloadTimelines",
    ]

    /// The rule, written out: which methods each role may call at all.
    static func expected(_ role: Role, _ method: String) -> Bool {
        switch role {
        case .root, .daemonUser, .adminGroup: true
        case .unlockGroup: ["io.widgetd.Device.GetStatus", "io.widgetd.Device.Unlock", "io.widgetd.Device.Lock"].contains(method)
        case .hostGroup: method == "io.widgetd.Device.GetStatus" || method.hasPrefix("io.widgetd.Host.")
        case .providerUser, .providerGroup: method == "io.widgetd.Device.GetStatus" || method.hasPrefix("io.widgetd.Provider.")
        case .stranger: method == "io.widgetd.Device.GetStatus"
        }
    }

    @Test(arguments: Role.allCases, methods)
    func eachRoleMayCallExactlyItsMethods(role: Role, method: String) {
        let authority = authorization.authority(of: role.peer)
        #expect(authorization.permits(authority, method: method) == Self.expected(role, method))
    }

    @Test func aProviderMayTouchOnlyItsOwnWidgets() throws {
        let weather = authorization.authority(of: Role.providerUser.peer)
        #expect(weather.mayProvide(try WidgetID("com.example.weather/forecast")))
        #expect(!weather.mayProvide(try WidgetID("com.example.mail/inbox")))
        #expect(!weather.mayProvide(try WidgetID("com.example.weatherman/x")))
        let mail = authorization.authority(of: Role.providerGroup.peer)
        #expect(mail.providers == ["com.example.mail"])
        let admin = authorization.authority(of: Role.root.peer)
        #expect(admin.mayProvide(try WidgetID("com.example.mail/inbox")))
    }
}

/// DESIGN §6, sandboxed apps: on a per-user instance every app runs as the owner's uid
/// (here the daemon's, 999), so only the sandbox tells an app from the owner.
@Suite struct SandboxedAppAuthorizationTests {
    static let configuration: Configuration = {
        var configuration = Configuration()
        configuration.unlockGroup = 200
        configuration.hostGroup = 300
        configuration.providers = [
            // An app's provider on a per-user instance: App= alone.
            ProviderRegistration(id: "com.example.weather", uid: nil, gid: nil, app: "com.example.Weather", file: "w.conf"),
            // App= beside User=: the app's sandbox and that uid, both.
            ProviderRegistration(id: "com.example.mail", uid: 1000, gid: nil, app: "com.example.Mail", file: "m.conf"),
            ProviderRegistration(id: "com.example.clock", uid: 999, gid: nil, file: "c.conf"),
        ]
        return configuration
    }()

    let authorization = Authorization(configuration: Self.configuration, daemonUID: 999)

    enum Peer: String, CaseIterable, Sendable {
        /// The owner outside any sandbox: the owner, admin.
        case owner
        /// The weather app in its sandbox, as the owner's uid (or root's: whatever its uid).
        case weatherApp, weatherAppAsRoot
        /// The mail app in its sandbox as the owner's uid: its provider wants uid 1000 too.
        case mailAppAsOwner, mailAppAsUser1000
        /// An app with no provider, in the unlock and host groups: still nothing.
        case unregisteredAppInEveryGroup
        /// The owner's uid, sandbox unknown (no SO_PEERPIDFD, the process gone, ...).
        case ownerUIDUnknown
        /// Another uid, sandbox unknown: its credentials (here the host group).
        case hostUnknown

        var peer: PeerCredentials {
            let weather = PeerSandbox.flatpak(appID: "com.example.Weather")
            let mail = PeerSandbox.flatpak(appID: "com.example.Mail")
            let unknown = PeerSandbox.unknown(.noPeerPIDFD(Errno(rawValue: 92)))
            return switch self {
            case .owner: PeerCredentials(pid: 1, uid: 999, gid: 999)
            case .weatherApp: PeerCredentials(pid: 1, uid: 999, gid: 999, sandbox: weather)
            case .weatherAppAsRoot: PeerCredentials(pid: 1, uid: 0, gid: 0, sandbox: weather)
            case .mailAppAsOwner: PeerCredentials(pid: 1, uid: 999, gid: 999, sandbox: mail)
            case .mailAppAsUser1000: PeerCredentials(pid: 1, uid: 1000, gid: 1000, sandbox: mail)
            case .unregisteredAppInEveryGroup:
                PeerCredentials(pid: 1, uid: 999, gid: 999, groups: [200, 300], sandbox: .flatpak(appID: "com.example.Game"))
            case .ownerUIDUnknown: PeerCredentials(pid: 1, uid: 999, gid: 999, sandbox: unknown)
            case .hostUnknown: PeerCredentials(pid: 1, uid: 5000, gid: 5000, groups: [300], sandbox: unknown)
            }
        }

        /// The providers it is, and whether it is admin and host.
        var expected: (providers: Set<String>, isAdmin: Bool, isHost: Bool, canUnlock: Bool) {
            switch self {
            case .owner: (["com.example.clock"], true, true, true)
            case .weatherApp, .weatherAppAsRoot: (["com.example.weather"], false, false, false)
            case .mailAppAsOwner: ([], false, false, false)
            case .mailAppAsUser1000: (["com.example.mail"], false, false, false)
            case .unregisteredAppInEveryGroup, .ownerUIDUnknown: ([], false, false, false)
            case .hostUnknown: ([], false, true, false)
            }
        }
    }

    @Test(arguments: Peer.allCases)
    func aSandboxedAppIsItsAppsProviderAndNothingMore(peer: Peer) {
        let authority = authorization.authority(of: peer.peer)
        let expected = peer.expected
        #expect(authority.providers == expected.providers)
        #expect(authority.isAdmin == expected.isAdmin)
        #expect(authority.isHost == expected.isHost)
        #expect(authority.canUnlock == expected.canUnlock)
        // The reserve of connections is the owner's, never an app's.
        #expect(authorization.mayUseReserve(peer.peer) == (expected.isAdmin || expected.canUnlock))
    }

    @Test func anAppWithoutAProviderMayCallGetStatusOnly() {
        let authority = authorization.authority(of: Peer.unregisteredAppInEveryGroup.peer)
        for method in AuthorizationTests.methods {
            #expect(authorization.permits(authority, method: method) == (method == "io.widgetd.Device.GetStatus"), "\(method)")
        }
        // A method outside the table is an administrator's.
        #expect(!authorization.permits(authority, method: "io.widgetd.Device.Unknown"))
    }

    @Test func aSandboxedAppMayTouchOnlyItsOwnProvidersWidgets() throws {
        let weather = authorization.authority(of: Peer.weatherApp.peer)
        #expect(weather.mayProvide(try WidgetID("com.example.weather/forecast")))
        #expect(!weather.mayProvide(try WidgetID("com.example.clock/world")))
        #expect(!weather.mayProvide(try WidgetID("com.example.mail/inbox")))
    }
}
