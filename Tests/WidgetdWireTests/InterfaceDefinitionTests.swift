import Foundation
import Testing
import TestSupport
import Varlink
import WidgetdWire

@Suite struct InterfaceDefinitionTests {
    /// The repository's `interfaces/` directory, found from this file's path.
    private static let interfacesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("interfaces")

    private static func file(of definition: InterfaceDefinition) -> URL {
        interfacesDirectory.appendingPathComponent("\(definition.name).varlink")
    }

    @Test(arguments: InterfaceDefinition.all)
    func embeddedTextEqualsTheInterfaceFile(definition: InterfaceDefinition) throws {
        let text = try String(contentsOf: Self.file(of: definition), encoding: .utf8)
        #expect(definition.text == text)
    }

    @Test func servesTheVarlinkServiceAndWidgetdInterfaces() {
        #expect(InterfaceDefinition.all.map(\.name)
            == ["org.varlink.service", "io.widgetd.Device", "io.widgetd.Provider", "io.widgetd.Host"])
        #expect(InterfaceDefinition.named("io.widgetd.Host") == .host)
        #expect(InterfaceDefinition.named("io.widgetd.Nothing") == nil)
    }

    @Test(arguments: [
        ("io.widgetd.Device", ["GetStatus", "SetPasscode", "Unlock", "Lock", "Wipe", "GetSettings", "SetSettings", "ReportPasscodeOutOfStep", "Monitor"]),
        ("io.widgetd.Provider", ["PutTimeline", "AppendEntries", "GetTimeline", "CloseTimeline", "DeleteTimeline", "WatchReloads", "WatchActions", "ListProviders"]),
        ("io.widgetd.Host", ["ListWidgets", "GetPresentation", "Watch", "ReloadTimelines", "PerformAction", "WatchWidgets"]),
        ("org.varlink.service", ["GetInfo", "GetInterfaceDescription"]),
    ])
    func declaresEveryMethodOfTheDesign(interface: String, methods: [String]) {
        #expect(InterfaceDefinition.named(interface)?.methods == Set(methods))
    }

    @Test func declaresTheErrorsTheirMethodsRaise() {
        #expect(InterfaceDefinition.device.errors
            == ["PermissionDenied", "PasscodeRequired", "WrongPasscode", "TryAgainLater", "UnlockInterrupted", "Wiped", "StorageFailure"])
        #expect(InterfaceDefinition.provider.errors == [
            "ProtectedDataUnavailable", "PermissionDenied", "WidgetNotFound", "ProviderNotRegistered",
            "InvalidTimeline", "TooLarge", "TryAgainLater", "Wiped", "StorageFailure",
        ])
        #expect(InterfaceDefinition.host.errors
            == [
                "PermissionDenied", "WidgetNotFound", "ProviderNotRegistered", "UnavailableOnSurface", "TryAgainLater", "Wiped",
                "StorageFailure", "ActionNotAvailable", "ProviderUnavailable",
            ])
    }

    /// python3 with the `varlink` package, or `nil` when it is not installed.
    private static let pythonWithVarlink: String? = {
        let candidate = "/usr/bin/env"
        guard FileManager.default.isExecutableFile(atPath: candidate) else { return nil }
        return (try? ChildProcess.run(candidate, ["python3", "-c", "import varlink"]).status) == 0 ? candidate : nil
    }()

    @Test(.enabled(if: pythonWithVarlink != nil, "python3 -m pip install varlink"),
          arguments: InterfaceDefinition.all)
    func pythonVarlinkParsesTheInterface(definition: InterfaceDefinition) throws {
        let result = try ChildProcess.run(Self.pythonWithVarlink!, [
            "python3", "-c",
            "import sys, varlink; i = varlink.Interface(open(sys.argv[1]).read()); print(i.name)",
            Self.file(of: definition).path,
        ])
        #expect(result.status == 0)
        #expect(result.output == definition.name + "\n")
    }
}

@Suite struct ServiceInfoTests {
    @Test func describesWidgetdAndListsItsInterfaces() {
        let info = ServiceInfo.widgetd
        #expect(info.vendor == "widgetd" && info.product == "widgetd")
        #expect(!info.version.isEmpty)
        #expect(info.interfaces == InterfaceDefinition.all.map(\.name))
    }

    /// `url` names a place that exists wherever widgetd is installed: its manual page,
    /// not a web address nobody keeps.
    @Test func getInfoURLNamesTheManualPage() {
        #expect(ServiceInfo.widgetd.url == "man:widgetd(8)")
    }
}

extension InterfaceDefinition: CustomTestStringConvertible {
    public var testDescription: String { name }
}
