import Foundation
import Testing
import WidgetdPOSIX
import WidgetModel
@testable import WidgetDaemon

/// A fixed account table instead of the system's.
struct TableResolver: AccountResolver {
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
        #expect(configuration.requireLockedMemory == true)
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
            RequireLockedMemory=no

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
        #expect(configuration.requireLockedMemory == false)
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

    /// On a per-user instance a provider without User=, Group= or App= is the owner's,
    /// as the shipped providers.d files are written (no `User=@USER@` to edit); the owner
    /// is an admin there already, and a sandboxed app of the owner is still admitted only
    /// by App=. A system instance (no owner) keeps it an error: nobody may write for it.
    @Test func aProviderWithoutWriterIsThePerUserInstanceOwnersAndAnErrorOnTheSystemOne() throws {
        let text = "[Provider]\nId=org.widgetd.media\nDataProtection=none\n"
        let perUser = try ConfigurationParser(resolver: TableResolver(), instanceOwner: 1000).parse(
            main: nil, providers: [ConfigurationSource(path: "providers.d/media.conf", text: text)])
        let media = try #require(perUser.provider(id: "org.widgetd.media"))
        #expect(perUser.problems.isEmpty)
        #expect(media.uid == 1000 && media.gid == nil && media.app == nil)
        #expect(media.admits(PeerCredentials(pid: 1, uid: 1000, gid: 1000)))
        #expect(!media.admits(PeerCredentials(pid: 1, uid: 1001, gid: 1001)))
        #expect(!media.admits(PeerCredentials(pid: 1, uid: 1000, gid: 1000, sandbox: .flatpak(appID: "com.example.Any"))))
        // A section that names a writer keeps it, owner or not.
        let named = try ConfigurationParser(resolver: TableResolver(), instanceOwner: 1000).parse(
            main: nil, providers: [ConfigurationSource(path: "providers.d/w.conf", text: "[Provider]\nId=com.example.w\nApp=com.example.Weather\n")])
        #expect(try #require(named.provider(id: "com.example.w")).uid == nil)

        let system = try ConfigurationParser(resolver: TableResolver(), instanceOwner: nil).parse(
            main: nil, providers: [ConfigurationSource(path: "providers.d/media.conf", text: text)])
        #expect(system.providers.isEmpty)
        #expect(system.problems.map(\.description) == [
            "providers.d/media.conf:1: error: [Provider] needs User=, Group= or App=: otherwise nobody may write for it (no provider of this file is registered)"
        ])
    }

    @Test func theSystemInstanceIsRootOrTheSystemConfiguration() {
        #expect(DaemonPaths.isSystemInstance(uid: 0, configurationFile: "/home/u/widgetd.conf"))
        #expect(DaemonPaths.isSystemInstance(uid: 995, configurationFile: DaemonPaths.system.configurationFile))
        #expect(!DaemonPaths.isSystemInstance(uid: 1000, configurationFile: "/home/u/.config/widgetd/widgetd.conf"))
    }

    @Test func aProviderMayBeRegisteredByTheSandboxedAppThatWritesForIt() throws {
        let configuration = try parse(providers: [
            "[Provider]\nId=com.example.weather\nApp=com.example.Weather\n",
            "[Provider]\nId=com.example.mail\nUser=1002\nApp=com.example.Mail\n",
        ])
        let weather = try #require(configuration.provider(id: "com.example.weather"))
        #expect(weather.app == "com.example.Weather" && weather.uid == nil && weather.gid == nil)
        #expect(weather.admits(PeerCredentials(pid: 1, uid: 5, gid: 5, sandbox: .flatpak(appID: "com.example.Weather"))))
        #expect(!weather.admits(PeerCredentials(pid: 1, uid: 5, gid: 5, sandbox: .flatpak(appID: "com.example.Mail"))))
        // App= alone admits no unsandboxed peer: only the sandboxed app writes for it.
        #expect(!weather.admits(PeerCredentials(pid: 1, uid: 5, gid: 5)))
        let mail = try #require(configuration.provider(id: "com.example.mail"))
        #expect(mail.admits(PeerCredentials(pid: 1, uid: 1002, gid: 1, sandbox: .flatpak(appID: "com.example.Mail"))))
        #expect(!mail.admits(PeerCredentials(pid: 1, uid: 5, gid: 5, sandbox: .flatpak(appID: "com.example.Mail"))))
        #expect(!mail.admits(PeerCredentials(pid: 1, uid: 1002, gid: 1, sandbox: .flatpak(appID: "com.example.Weather"))))
        #expect(mail.admits(PeerCredentials(pid: 1, uid: 1002, gid: 1)))
    }

    /// Each bad input, where it is, and why: every rejection names its file and line.
    @Test(arguments: [
        ("ClassAGraceSec=1\n", "widgetd.conf:1: 'ClassAGraceSec=' appears before any [Section]"),
        ("[Daemon]\njust words\n", "widgetd.conf:2: expected [Section], Key=Value or a comment"),
        ("[Daemon\n", "widgetd.conf:1: expected [Section], Key=Value or a comment"),
        ("[Daemon]\nClassAGraceSec=-1\n", "widgetd.conf:2: invalid value '-1' for ClassAGraceSec=: expected a time span such as 30s, 5min or 1h, from 0 to 1d"),
        ("[Daemon]\nClassAGraceSec=infinity\n", "widgetd.conf:2: invalid value 'infinity' for ClassAGraceSec=: expected a time span such as 30s, 5min or 1h, from 0 to 1d"),
        ("[Session]\nRequirePasscodeAfterSec=400d\n", "widgetd.conf:2: invalid value '400d' for RequirePasscodeAfterSec=: expected a time span such as 30s, 5min or 1h, from 0 to 366d, or infinity"),
        ("[Daemon]\nIdleTimeoutSec=soon\n", "widgetd.conf:2: invalid value 'soon' for IdleTimeoutSec=: expected a time span such as 30s, 5min or 1h, from 0 to 1d, or infinity"),
        ("[Daemon]\nWipeAfterFailedAttempts=many\n", "widgetd.conf:2: invalid value 'many' for WipeAfterFailedAttempts=: expected a number of attempts, or off"),
        ("[Daemon]\nPasscodeKDF=fast\n", "widgetd.conf:2: invalid value 'fast' for PasscodeKDF=: expected interactive, moderate, sensitive or minimum"),
        ("[Daemon]\nMaxTimelineBytes=12X\n", "widgetd.conf:2: invalid value '12X' for MaxTimelineBytes=: expected a size from 1024 bytes to 1G, with an optional K, M or G suffix"),
        ("[Daemon]\nMaxConnections=0\n", "widgetd.conf:2: invalid value '0' for MaxConnections=: expected a number from 1 to 65536"),
        ("[Daemon]\nRequireLockedMemory=maybe\n", "widgetd.conf:2: invalid value 'maybe' for RequireLockedMemory=: expected yes or no"),
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

    /// A bad provider file registers none of its providers, names its file and line,
    /// and leaves every other provider registered.
    @Test(arguments: [
        ("[Provider]\nId=com.example.a\nUser=nobody-known\n", "providers.d/0.conf:3: error: unknown user 'nobody-known' (no provider of this file is registered)"),
        ("[Provider]\nId=com/example\nUser=1\n", "providers.d/0.conf:2: error: invalid provider id 'com/example': printable ASCII without '/', '#' or '..', at most 255 bytes (no provider of this file is registered)"),
        ("[Provider]\nUser=1\n", "providers.d/0.conf:1: error: [Provider] needs Id= (no provider of this file is registered)"),
        ("[Provider]\nId=com.example.a\n", "providers.d/0.conf:1: error: [Provider] needs User=, Group= or App=: otherwise nobody may write for it (no provider of this file is registered)"),
        ("[Provider]\nId=com.example.a\nUser=1\nDataProtection=secret\n", "providers.d/0.conf:4: error: invalid value 'secret' for DataProtection=: expected complete, completeUnlessOpen, completeUntilFirstUserAuthentication, none (no provider of this file is registered)"),
        ("[Provider]\nId=com.example.a\nUser=1\nDataProtecton=complete\n", "providers.d/0.conf:4: error: unknown key 'DataProtecton' in section [Provider]; did you mean DataProtection=? (no provider of this file is registered)"),
        ("[Daemon]\nClassAGraceSec=1\n", "providers.d/0.conf:1: error: unknown section [Daemon] (no provider of this file is registered)"),
        ("[Provider]\nId=com.example.a\nApp=com.example\n", "providers.d/0.conf:3: error: invalid value 'com.example' for App=: expected a Flatpak application id: three or more dot-separated elements of letters, digits, '_' and '-', none beginning with a digit, at most 255 bytes (no provider of this file is registered)"),
    ])
    func aBadProviderFileDisablesOnlyItsProviders(text: String, message: String) throws {
        let configuration = try parse(providers: [text, "[Provider]\nId=com.example.good\nUser=1\n"])
        #expect(configuration.providers.map(\.id) == ["com.example.good"])
        #expect(configuration.problems.map(\.description) == [message])
    }

    @Test func aDuplicateProviderDisablesTheLaterFileNamingBothPlaces() throws {
        let configuration = try parse(
            providers: ["[Provider]\nId=com.example.a\nUser=1\n", "# again\n[Provider]\nId=com.example.a\nUser=2\n"])
        #expect(configuration.providers.map(\.uid) == [1])
        #expect(configuration.problems.map(\.description) == [
            "providers.d/1.conf:3: error: provider 'com.example.a' is already registered at providers.d/0.conf:2 (no provider of this file is registered)",
        ])
    }

    @Test func sessionOptionsDefaultToFollowingEverySourceOfEveryAutoSession() throws {
        let session = try parse(main: nil).session
        #expect(session == SessionOptions())
        #expect(session.lockOnSessionLock && session.lockOnSleep && session.lockOnSessionEnd)
        #expect(session.sessions == .auto)
        #expect(session.followsSessions)
    }

    @Test func readsEverySessionOption() throws {
        let session = try parse(main: """
            [Session]
            LockOnSessionLock=no
            LockOnSleep=off
            LockOnSessionEnd=false
            Sessions=3 c1
            """).session
        #expect(!session.lockOnSessionLock && !session.lockOnSleep && !session.lockOnSessionEnd)
        #expect(!session.followsSessions)
        #expect(session.sessions == .ids(["3", "c1"]))
        #expect(try parse(main: "[Session]\nSessions=3\nSessions=\n").session.sessions == .auto)
        #expect(try parse(main: "[Session]\nSessions=auto\n").session.sessions == .auto)
    }

    @Test func requirePasscodeAfterSecIsATimeSpanDefaulting72hAndZeroOrInfinityTurnsItOff() throws {
        #expect(try parse(main: nil).session.requirePasscodeAfter == 72 * 3600)
        #expect(try parse(main: "[Session]\nRequirePasscodeAfterSec=1d 12h\n").session.requirePasscodeAfter == 129_600)
        #expect(try parse(main: "[Session]\nRequirePasscodeAfterSec=0\n").session.requirePasscodeAfter == nil)
        #expect(try parse(main: "[Session]\nRequirePasscodeAfterSec=infinity\n").session.requirePasscodeAfter == nil)
        #expect(try parse(main: "[Session]\nRequirePasscodeAfterSec=0\nRequirePasscodeAfterSec=\n").session.requirePasscodeAfter == 72 * 3600)
        var configuration = Configuration()
        configuration.session.requirePasscodeAfter = 3600
        #expect(DaemonRuntime.storeConfiguration(configuration).requirePasscodeAfter == 3600)
    }

    @Test(arguments: [
        "LockOnSleep=maybe", "Sessions=auto 3", "Sessions=3,4", "Sessions=_3", "Sessions=3' 4",
        "RequirePasscodeAfterSec=soon", "RequirePasscodeAfterSec=-1h", "RequirePasscodeAfterSec=400d",
    ])
    func aBadSessionValueIsAnErrorNamingItsLine(_ line: String) {
        #expect(throws: ConfigurationError.self) { try parse(main: "[Session]\n\(line)\n") }
    }

    @Test func anUnknownSessionKeyIsAWarning() throws {
        let configuration = try parse(main: "[Session]\nLockOnCoffee=yes\n")
        #expect(configuration.problems.map(\.description) == [
            "widgetd.conf:2: warning: unknown key 'LockOnCoffee' in section [Session]",
        ])
    }

    /// As systemd does: an unknown key or section is a warning naming its place, and
    /// the rest of the file applies.
    @Test func unknownKeysAndSectionsAreWarningsNotErrors() throws {
        let configuration = try parse(main: "[Daemon]\nFoo=1\nClassAGraceSec=3\n\n[Nonsense]\nBar=2\n")
        #expect(configuration.classAGraceSeconds == 3)
        #expect(configuration.problems.map(\.description) == [
            "widgetd.conf:2: warning: unknown key 'Foo' in section [Daemon]",
            "widgetd.conf:5: warning: unknown section [Nonsense]",
        ])
    }

    /// A near miss names what was meant: a key of its section, a section.
    @Test func aMistypedKeyOrSectionSaysWhatWasMeant() throws {
        let configuration = try parse(main: "[Daemon]\nClassAGraceSecs=3\n\n[Sesion]\nLockOnSleep=no\n\n[Access]\nadmingroup=wheel\n")
        #expect(configuration.problems.map(\.description) == [
            "widgetd.conf:2: warning: unknown key 'ClassAGraceSecs' in section [Daemon]; did you mean ClassAGraceSec=?",
            "widgetd.conf:4: warning: unknown section [Sesion]; did you mean [Session]?",
            "widgetd.conf:8: warning: unknown key 'admingroup' in section [Access]; did you mean AdminGroup=?",
        ])
    }

    /// Time spans as systemd writes them, in seconds.
    @Test(arguments: [
        ("10", 10.0), ("2.5", 2.5), ("5s", 5), ("500ms", 0.5), ("1min", 60), ("1h 30min", 5_400),
        ("1h30min", 5_400), ("72h", 259_200), ("2d", 172_800), ("1w", 604_800), ("1min 30", 90), ("0", 0),
    ])
    func timeSpansAreReadAsSystemdWritesThem(text: String, seconds: Double) {
        #expect(ConfigurationValues.timeSpan(text) == seconds)
    }

    @Test(arguments: ["", "s", "5 parsecs", "1..2s", "-1s", "ten", "3 5s"])
    func whatIsNotATimeSpan(text: String) {
        #expect(ConfigurationValues.timeSpan(text) == nil)
    }

    @Test func aGracePeriodTakesAUnit() throws {
        #expect(try parse(main: "[Daemon]\nClassAGraceSec=1min\nIdleTimeoutSec=infinity\n").classAGraceSeconds == 60)
        #expect(try parse(main: "[Daemon]\nIdleTimeoutSec=infinity\n").idleTimeoutSeconds == 0)
    }

    @Test(arguments: [
        ("yes", true), ("True", true), ("on", true), ("1", true), ("y", true),
        ("no", false), ("FALSE", false), ("off", false), ("0", false), ("n", false),
    ])
    func booleansAreReadAsSystemdReadsThem(text: String, value: Bool) {
        #expect(ConfigurationValues.boolean(text) == value)
        #expect(ConfigurationValues.boolean("maybe") == nil)
    }

    @Test func wipeAfterFailedAttemptsIsOffForAnyFalseBoolean() throws {
        for off in ["off", "no", "false", "0", "No"] {
            #expect(try parse(main: "[Daemon]\nWipeAfterFailedAttempts=\(off)\n").wipeAfterFailedAttempts == nil)
        }
    }

    /// `--check-config` sees every problem, not only the first, in the order of the files.
    @Test func checkReportsEveryProblemOfEveryFile() {
        let problems = parser.check(
            main: ConfigurationSource(path: "widgetd.conf", text: "[Daemon]\nClassAGraceSec=soon\nFoo=1\nMaxConnections=0\n"),
            dropIns: [ConfigurationSource(path: "widgetd.conf.d/a.conf", text: "[Daemon\n")],
            providers: [ConfigurationSource(path: "providers.d/x.conf", text: "[Provider]\nId=com.example.x\n")])
        #expect(problems.map(\.description) == [
            "widgetd.conf:2: error: invalid value 'soon' for ClassAGraceSec=: expected a time span such as 30s, 5min or 1h, from 0 to 1d",
            "widgetd.conf:3: warning: unknown key 'Foo' in section [Daemon]",
            "widgetd.conf:4: error: invalid value '0' for MaxConnections=: expected a number from 1 to 65536",
            "widgetd.conf.d/a.conf:1: error: expected [Section], Key=Value or a comment",
            "providers.d/x.conf:1: error: [Provider] needs User=, Group= or App=: otherwise nobody may write for it (no provider of this file is registered)",
        ])
    }

    @Test func aProviderSectionInTheMainFileRegistersNothing() throws {
        let configuration = try parse(main: "[Provider]\nId=com.example.a\nUser=1\n")
        #expect(configuration.providers.isEmpty)
        #expect(configuration.problems.map(\.error.reason) == [.unknownSection("Provider")])
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
