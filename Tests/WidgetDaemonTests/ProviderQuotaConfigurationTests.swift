import Testing
import WidgetStore
@testable import WidgetDaemon

/// `[Provider] MaxWidgets=`/`MaxBytes=` and their `[Daemon]` defaults (issue 13, defect 9).
@Suite struct ProviderQuotaConfigurationTests {
    private struct NoAccounts: AccountResolver {
        func userID(named name: String) -> UInt32? { nil }
        func groupID(named name: String) -> UInt32? { nil }
    }

    private func parse(main: String? = nil, providers: [String]) throws(ConfigurationError) -> Configuration {
        try ConfigurationParser(resolver: NoAccounts()).parse(
            main: main.map { ConfigurationSource(path: "widgetd.conf", text: $0) },
            providers: providers.enumerated().map { ConfigurationSource(path: "providers.d/\($0.offset).conf", text: $0.element) })
    }

    @Test func everyProviderHasAQuotaByDefault() throws {
        let configuration = try parse(providers: ["[Provider]\nId=com.example.a\nUser=1\n"])
        #expect(configuration.providers[0].quota == ProviderQuota(maxWidgets: 1000, maxBytes: 64 << 20))
        #expect(Configuration().maxWidgetsPerProvider == 1000 && Configuration().maxBytesPerProvider == 64 << 20)
    }

    @Test func aProviderSetsItsOwnAndTheDaemonSetsTheRest() throws {
        let configuration = try parse(
            main: "[Daemon]\nMaxWidgetsPerProvider=50\nMaxBytesPerProvider=2M\n",
            providers: [
                "[Provider]\nId=com.example.a\nUser=1\nMaxWidgets=3\nMaxBytes=16K\n",
                "[Provider]\nId=com.example.b\nUser=1\nMaxBytes=1G\n",
                "[Provider]\nId=com.example.c\nUser=1\nMaxWidgets=7\nMaxWidgets=\n",
            ])
        #expect(configuration.provider(id: "com.example.a")?.quota == ProviderQuota(maxWidgets: 3, maxBytes: 16 << 10))
        #expect(configuration.provider(id: "com.example.b")?.quota == ProviderQuota(maxWidgets: 50, maxBytes: 1 << 30))
        // An empty value resets to the default, as everywhere.
        #expect(configuration.provider(id: "com.example.c")?.quota == ProviderQuota(maxWidgets: 50, maxBytes: 2 << 20))
    }

    @Test(arguments: [
        ("[Provider]\nId=com.example.a\nUser=1\nMaxWidgets=0\n", "providers.d/0.conf:4: invalid value '0' for MaxWidgets=: expected a number from 1 to 1000000"),
        ("[Provider]\nId=com.example.a\nUser=1\nMaxWidgets=many\n", "providers.d/0.conf:4: invalid value 'many' for MaxWidgets=: expected a number from 1 to 1000000"),
        ("[Provider]\nId=com.example.a\nUser=1\nMaxBytes=10\n", "providers.d/0.conf:4: invalid value '10' for MaxBytes=: expected a size from 1024 bytes to 1G, with an optional K, M or G suffix"),
    ])
    func aBadQuotaDisablesItsProviderNamingFileAndLine(text: String, message: String) throws {
        let configuration = try parse(providers: [text])
        #expect(configuration.providers.isEmpty)
        #expect(configuration.problems.map(\.error.description) == [message])
    }

    @Test func aBadDaemonDefaultIsRejectedNamingFileAndLine() {
        #expect { try parse(main: "[Daemon]\nMaxBytesPerProvider=-1\n", providers: []) } throws: {
            String(describing: $0)
                == "widgetd.conf:2: invalid value '-1' for MaxBytesPerProvider=: expected a size from 1024 bytes to 1G, with an optional K, M or G suffix"
        }
    }
}
