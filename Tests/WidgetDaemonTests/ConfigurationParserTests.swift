import Foundation
import Testing
import WidgetModel
@testable import WidgetDaemon

/// A fixed account table instead of the system's.
private struct TableResolver: AccountResolver {
    var users = ["weather": UInt32(1001), "health": 1002]
    var groups = ["widgetd-admin": UInt32(2001), "widgetd-hosts": 2002, "mail": 2003]
    func userID(named name: String) -> UInt32? { users[name] }
    func groupID(named name: String) -> UInt32? { groups[name] }
}

@Suite struct ConfigurationParserTests {
    private let parser = ConfigurationParser(resolver: TableResolver())

    private func parse(
        main: String? = nil, dropIns: [String] = [], providers: [String] = []
    ) throws(ConfigurationError) -> Configuration {
        try parser.parse(
            main: main.map { ConfigurationSource(path: "widgetd.conf", text: $0) },
            dropIns: dropIns.enumerated().map { ConfigurationSource(path: "widgetd.conf.d/\($0.offset).conf", text: $0.element) },
            providers: providers.enumerated().map { ConfigurationSource(path: "providers.d/\($0.offset).conf", text: $0.element) })
    }

    @Test func missingFilesMeanDefaults() throws {
        let configuration = try parse()
        #expect(configuration == Configuration())
        #expect(configuration.classAGraceSeconds == 10)
        #expect(configuration.wipeAfterFailedAttempts == nil)
        #expect(configuration.passcodeKDF == .interactive)
        #expect(configuration.maxConnections == 256)
        #expect(configuration.maxMessageBytes == 2 << 20)
        #expect(configuration.idleTimeoutSeconds == 60)
        #expect(configuration.serverLimits.idleTimeoutSeconds == 60)
        #expect(configuration.providers.isEmpty)
    }

    /// Issue 13, defect 6: the limits against a crowd of peers, their defaults, and that
    /// each reaches the server.
    @Test func readsTheConnectionLimitsAgainstACrowdOfPeers() throws {
        let defaults = try parse().serverLimits
        #expect(defaults.maxConnectionsPerUser == 32)
        #expect(defaults.reservedConnections == 8)
        #expect(defaults.messageTimeoutSeconds == 10)
        #expect(defaults.maxPendingInputBytes == 32 << 20)
        let limits = try parse(main: """
            [Daemon]
            MaxConnectionsPerUser=4
            ReservedConnections=0
            MessageTimeoutSec=2.5
            MaxPendingInputBytes=8M
            """).serverLimits
        #expect(limits.maxConnectionsPerUser == 4)
        #expect(limits.reservedConnections == 0)
        #expect(limits.messageTimeoutSeconds == 2.5)
        #expect(limits.maxPendingInputBytes == 8 << 20)
        #expect(try parse(main: "[Daemon]\nMaxConnectionsPerUser=4\n", dropIns: ["[Daemon]\nMaxConnectionsPerUser=\n"])
            .maxConnectionsPerUser == 32)
    }

    @Test func readsEveryKey() throws {
        let configuration = try parse(main: """
            # comment
            ; another comment
            [Daemon]
              ClassAGraceSec = 2.5
            WipeAfterFailedAttempts=10
            PasscodeKDF=moderate
            MaxTimelineBytes=512K
            MaxConnections=32
            IdleTimeoutSec=0
            MaxMessageBytes=1M
            MaxCachedTimelines=100

            [Access]
            AdminGroup=widgetd-admin
            UnlockGroup=3000
            HostGroup=widgetd-hosts
            """)
        #expect(configuration.classAGraceSeconds == 2.5)
        #expect(configuration.wipeAfterFailedAttempts == 10)
        #expect(configuration.passcodeKDF == .moderate)
        #expect(configuration.maxTimelineBytes == 512 * 1024)
        #expect(configuration.maxConnections == 32)
        #expect(configuration.idleTimeoutSeconds == 0)
        #expect(configuration.serverLimits.idleTimeoutSeconds == 0)
        #expect(configuration.maxMessageBytes == 1 << 20)
        #expect(configuration.maxCachedTimelines == 100)
        #expect(configuration.adminGroup == 2001)
        #expect(configuration.unlockGroup == 3000)
        #expect(configuration.hostGroup == 2002)
        #expect(configuration.serverLimits.maxConnections == 32)
    }

    @Test func dropInsOverrideTheMainFileInOrderAndEmptyValuesReset() throws {
        let configuration = try parse(
            main: "[Daemon]\nClassAGraceSec=30\nMaxConnections=8\nWipeAfterFailedAttempts=5\n",
            dropIns: ["[Daemon]\nClassAGraceSec=20\n", "[Daemon]\nClassAGraceSec=5\nMaxConnections=\nWipeAfterFailedAttempts=off\n"])
        #expect(configuration.classAGraceSeconds == 5)
        #expect(configuration.maxConnections == 256)
        #expect(configuration.wipeAfterFailedAttempts == nil)
    }

    @Test func readsProvidersWithTheirClassAndWriters() throws {
        let configuration = try parse(providers: [
            "[Provider]\nId=com.example.weather\nUser=weather\n",
            "[Provider]\nId=com.example.health\nUser=1002\nGroup=mail\nDataProtection=complete\n",
        ])
        #expect(configuration.providers.map(\.id) == ["com.example.health", "com.example.weather"])
        let weather = try #require(configuration.provider(id: "com.example.weather"))
        #expect(weather.uid == 1001 && weather.gid == nil)
        #expect(weather.dataProtection == .completeUntilFirstUserAuthentication)
        let health = try #require(configuration.provider(id: "com.example.health"))
        #expect(health.uid == 1002 && health.gid == 2003 && health.dataProtection == .complete)
        #expect(health.admits(PeerCredentials(pid: 1, uid: 1002, gid: 1)))
        #expect(health.admits(PeerCredentials(pid: 1, uid: 5, gid: 5, groups: [2003])))
        #expect(!health.admits(PeerCredentials(pid: 1, uid: 5, gid: 5, groups: [2002])))
    }

    /// Each bad input, where it is, and why: every rejection names its file and line.
    @Test(arguments: [
        ("[Daemon]\nFoo=1\n", "widgetd.conf:2: unknown key 'Foo' in section [Daemon]"),
        ("\n[Nonsense]\n", "widgetd.conf:2: unknown section [Nonsense]"),
        ("ClassAGraceSec=1\n", "widgetd.conf:1: 'ClassAGraceSec=' appears before any [Section]"),
        ("[Daemon]\njust words\n", "widgetd.conf:2: expected [Section], Key=Value or a comment"),
        ("[Daemon\n", "widgetd.conf:1: expected [Section], Key=Value or a comment"),
        ("[Daemon]\nClassAGraceSec=-1\n", "widgetd.conf:2: invalid value '-1' for ClassAGraceSec=: expected seconds between 0 and 86400"),
        ("[Daemon]\nWipeAfterFailedAttempts=many\n", "widgetd.conf:2: invalid value 'many' for WipeAfterFailedAttempts=: expected a number of attempts, or off"),
        ("[Daemon]\nPasscodeKDF=fast\n", "widgetd.conf:2: invalid value 'fast' for PasscodeKDF=: expected interactive, moderate, sensitive or minimum"),
        ("[Daemon]\nMaxTimelineBytes=12X\n", "widgetd.conf:2: invalid value '12X' for MaxTimelineBytes=: expected a size from 1024 bytes to 1G, with an optional K, M or G suffix"),
        ("[Daemon]\nMaxConnections=0\n", "widgetd.conf:2: invalid value '0' for MaxConnections=: expected a number from 1 to 65536"),
        ("[Daemon]\nMaxConnectionsPerUser=0\n", "widgetd.conf:2: invalid value '0' for MaxConnectionsPerUser=: expected a number from 1 to 65536"),
        ("[Daemon]\nMaxPendingInputBytes=1K\n", "widgetd.conf:2: invalid value '1K' for MaxPendingInputBytes=: expected a size from 65536 bytes to 1G, with an optional K, M or G suffix"),
        ("[Access]\nHostGroup=nogroup-here\n", "widgetd.conf:2: unknown group 'nogroup-here'"),
    ])
    func rejectsABadMainFileNamingFileAndLine(text: String, message: String) {
        #expect { try parse(main: text) } throws: { String(describing: $0) == message }
    }

    @Test func rejectsABadDropInNamingIt() {
        #expect { try parse(main: "[Daemon]\n", dropIns: ["[Daemon]\n\nMaxConnections=lots\n"]) } throws: {
            String(describing: $0) == "widgetd.conf.d/0.conf:3: invalid value 'lots' for MaxConnections=: expected a number from 1 to 65536"
        }
    }

    @Test(arguments: [
        ("[Provider]\nId=com.example.a\nUser=nobody-known\n", "providers.d/0.conf:3: unknown user 'nobody-known'"),
        ("[Provider]\nId=com/example\nUser=1\n", "providers.d/0.conf:2: invalid provider id 'com/example': printable ASCII without '/', '#' or '..', at most 255 bytes"),
        ("[Provider]\nUser=1\n", "providers.d/0.conf:1: [Provider] needs Id="),
        ("[Provider]\nId=com.example.a\n", "providers.d/0.conf:1: [Provider] needs User= or Group=: otherwise nobody may write for it"),
        ("[Provider]\nId=com.example.a\nUser=1\nDataProtection=secret\n", "providers.d/0.conf:4: invalid value 'secret' for DataProtection=: expected complete, completeUnlessOpen, completeUntilFirstUserAuthentication, none"),
        ("[Provider]\nId=com.example.a\nUser=1\nColor=red\n", "providers.d/0.conf:4: unknown key 'Color' in section [Provider]"),
        ("[Daemon]\nClassAGraceSec=1\n", "providers.d/0.conf:1: unknown section [Daemon]"),
    ])
    func rejectsABadProviderNamingFileAndLine(text: String, message: String) {
        #expect { try parse(providers: [text]) } throws: { String(describing: $0) == message }
    }

    @Test func rejectsADuplicateProviderNamingBothPlaces() {
        #expect {
            try parse(providers: ["[Provider]\nId=com.example.a\nUser=1\n", "# again\n[Provider]\nId=com.example.a\nUser=2\n"])
        } throws: {
            String(describing: $0) == "providers.d/1.conf:3: provider 'com.example.a' is already registered at providers.d/0.conf:2"
        }
    }

    @Test func rejectsAProviderSectionInTheMainFile() {
        #expect { try parse(main: "[Provider]\nId=com.example.a\n") } throws: {
            ($0 as? ConfigurationError)?.reason == .unknownSection("Provider")
        }
    }
}

@Suite struct ConfigurationLoaderTests {
    @Test func loadsTheMainFileDropInsInLexicalOrderAndProvidersBesideIt() throws {
        let directory = NSTemporaryDirectory() + "widgetd-config-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory + "/widgetd.conf.d", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: directory + "/providers.d", withIntermediateDirectories: true)
        try "[Daemon]\nClassAGraceSec=30\n".write(toFile: directory + "/widgetd.conf", atomically: true, encoding: .utf8)
        try "[Daemon]\nClassAGraceSec=20\n".write(toFile: directory + "/widgetd.conf.d/10-a.conf", atomically: true, encoding: .utf8)
        try "[Daemon]\nClassAGraceSec=7\n".write(toFile: directory + "/widgetd.conf.d/20-b.conf", atomically: true, encoding: .utf8)
        try "[Daemon]\nClassAGraceSec=99\n".write(toFile: directory + "/widgetd.conf.d/30-c.conf.disabled", atomically: true, encoding: .utf8)
        try "[Provider]\nId=com.example.x\nUser=0\n".write(toFile: directory + "/providers.d/x.conf", atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(mainFile: directory + "/widgetd.conf")
        #expect(configuration.classAGraceSeconds == 7)
        #expect(configuration.providers.map(\.id) == ["com.example.x"])
    }

    @Test func aMissingMainFileMeansDefaults() throws {
        let configuration = try ConfigurationLoader.load(mainFile: "/nonexistent/widgetd/widgetd.conf")
        #expect(configuration == Configuration())
    }

    @Test func theExampleConfigurationLoads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let example = root.appendingPathComponent("config/widgetd.conf").path
        try #require(FileManager.default.fileExists(atPath: example))
        // Resolve the example's account names to fixed ids: they need not exist here.
        struct AnyName: AccountResolver {
            func userID(named name: String) -> UInt32? { 5000 }
            func groupID(named name: String) -> UInt32? { 6000 }
        }
        let configuration = try ConfigurationLoader.load(mainFile: example, resolver: AnyName())
        #expect(configuration.classAGraceSeconds == Configuration().classAGraceSeconds)
        #expect(Set(configuration.providers.map(\.dataProtection)) == Set(ProtectionClass.allCases))
    }
}
