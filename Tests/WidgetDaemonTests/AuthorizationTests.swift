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
