import Foundation
import Testing
import WidgetdPOSIX

@testable import WidgetDaemon

/// `Provider.ListProviders` (DESIGN §6): an administrator sees every registered provider
/// and the provider files that register nothing; a provider's user only its own; anyone
/// else is refused. And `PermissionDenied` for a widget names its provider and writers.
@Suite struct ServiceProviderListTests {
    static let weatherUser: UInt32 = 4242
    static let stranger = PeerCredentials(pid: 2, uid: 5151, gid: 5151)

    /// The harness's providers, `com.example.weather` written by uid 4242, and one
    /// provider file disabled by a missing key.
    static func harness() throws -> ServiceHarness {
        try ServiceHarness { configuration in
            configuration.providers = configuration.providers.map {
                var registration = $0
                if registration.id == "com.example.weather" { registration.uid = weatherUser }
                return registration
            }
            configuration.problems = [
                ConfigurationProblem(
                    severity: .error,
                    error: ConfigurationError(
                        file: "/etc/widgetd/providers.d/broken.conf", line: 2,
                        reason: .missingKey(section: "Provider", key: "DataProtection")),
                    disablesProviderFile: true),
                ConfigurationProblem(
                    severity: .warning,
                    error: ConfigurationError(file: "/etc/widgetd/widgetd.conf", line: 9, reason: .unknownSection("Nope"))),
            ]
        }
    }

    @Test func anAdministratorSeesEveryProviderAndEveryDisabledFile() throws {
        let harness = try Self.harness()
        let reply = harness.ok("io.widgetd.Provider.ListProviders")
        let providers = reply["providers"] as? [[String: Any]] ?? []
        #expect(providers.map { $0["id"] as? String } == ServiceHarness.providers.map(\.id).sorted())
        let weather = providers.first { $0["id"] as? String == "com.example.weather" }
        #expect(weather?["class"] as? String == "completeUntilFirstUserAuthentication")
        #expect(weather?["user"] as? Int == Int(Self.weatherUser))
        #expect(weather?["group"] == nil)
        #expect(weather?["file"] as? String == "com.example.weather.conf")
        let disabled = reply["disabled"] as? [[String: Any]] ?? []
        #expect(disabled.count == 1, "a warning elsewhere disables nothing")
        #expect(disabled.first?["file"] as? String == "/etc/widgetd/providers.d/broken.conf")
        #expect(disabled.first?["line"] as? Int == 2)
        #expect((disabled.first?["reason"] as? String)?.contains("DataProtection") == true)
    }

    @Test func aSandboxedAppSeesOnlyTheProviderItsAppIsAndAnAdministratorSeesItsApp() throws {
        let harness = try ServiceHarness { configuration in
            configuration.providers = configuration.providers.map {
                var registration = $0
                if registration.id == "com.example.weather" { registration.app = "com.example.Weather" }
                return registration
            }
        }
        let admin = harness.ok("io.widgetd.Provider.ListProviders")["providers"] as? [[String: Any]] ?? []
        #expect(admin.first { $0["id"] as? String == "com.example.weather" }?["app"] as? String == "com.example.Weather")
        #expect(admin.first { $0["id"] as? String == "com.example.clock" }?["app"] == nil)
        // As root, which outside a sandbox is an administrator.
        let app = PeerCredentials(pid: 2, uid: 0, gid: 0, sandbox: .flatpak(appID: "com.example.Weather"))
        let call = harness.call("io.widgetd.Provider.ListProviders", peer: app)
        #expect(call.error == nil)
        #expect((call.parameters["providers"] as? [[String: Any]] ?? []).map { $0["id"] as? String } == ["com.example.weather"])
        #expect(harness.call("io.widgetd.Device.Lock", peer: app).error == "io.widgetd.PermissionDenied")
    }

    @Test func aProvidersUserSeesOnlyItsOwnAndNoDisabledFile() throws {
        let harness = try Self.harness()
        let call = harness.call(
            "io.widgetd.Provider.ListProviders", peer: PeerCredentials(pid: 2, uid: Self.weatherUser, gid: Self.weatherUser))
        #expect(call.error == nil)
        let providers = call.parameters["providers"] as? [[String: Any]] ?? []
        #expect(providers.map { $0["id"] as? String } == ["com.example.weather"])
        #expect(call.parameters["disabled"] == nil)
    }

    @Test func anyoneElseIsRefused() throws {
        let harness = try Self.harness()
        #expect(harness.call("io.widgetd.Provider.ListProviders", peer: Self.stranger).error == "io.widgetd.PermissionDenied")
    }

    @Test func permissionDeniedForAWidgetNamesItsProviderAndWriters() throws {
        let harness = try Self.harness()
        // uid 4242 provides com.example.weather, not com.example.clock (uid 0's).
        let call = harness.call(
            "io.widgetd.Provider.DeleteTimeline", ["widget": "com.example.clock/world"],
            peer: PeerCredentials(pid: 2, uid: Self.weatherUser, gid: Self.weatherUser))
        #expect(call.error == "io.widgetd.PermissionDenied")
        #expect(call.parameters["provider"] as? String == "com.example.clock")
        #expect(call.parameters["user"] as? Int == 0)
        #expect(call.parameters["group"] == nil)
    }

    @Test func permissionDeniedForAMethodNamesNothing() throws {
        let harness = try Self.harness()
        let call = harness.call("io.widgetd.Device.Wipe", ["confirm": "WIPE"], peer: Self.stranger)
        #expect(call.error == "io.widgetd.PermissionDenied")
        #expect(call.parameters.isEmpty)
    }
}
