import Testing
@testable import WidgetDaemon

/// `[Daemon] KeyProtection=` and `TPM2Device=` (DESIGN §9).
@Suite struct KeyProtectionConfigurationTests {
    private struct NoAccounts: AccountResolver {
        func userID(named name: String) -> UInt32? { nil }
        func groupID(named name: String) -> UInt32? { nil }
    }

    private func parse(_ text: String) throws(ConfigurationError) -> Configuration {
        try ConfigurationParser(resolver: NoAccounts()).parse(main: ConfigurationSource(path: "widgetd.conf", text: text))
    }

    @Test func keyProtectionIsSoftwareOnTheKernelsTPMByDefault() throws {
        let configuration = try parse("")
        #expect(configuration.keyProtection == .software)
        #expect(configuration.tpm2Device == "device:/dev/tpmrm0")
    }

    @Test(arguments: [
        ("KeyProtection=tpm2", KeyProtection.tpm2, "device:/dev/tpmrm0"),
        ("KeyProtection=software", .software, "device:/dev/tpmrm0"),
        ("KeyProtection=tpm2\nTPM2Device=swtpm:path=/run/swtpm/sock", .tpm2, "swtpm:path=/run/swtpm/sock"),
        ("TPM2Device=mssim:host=127.0.0.1,port=2321", .software, "mssim:host=127.0.0.1,port=2321"),
        ("TPM2Device=device", .software, "device"),
        ("KeyProtection=tpm2\nKeyProtection=", .software, "device:/dev/tpmrm0"),
        ("TPM2Device=swtpm:path=/x\nTPM2Device=", .software, "device:/dev/tpmrm0"),
    ])
    func keyProtectionSettingsAreRead(lines: String, protection: KeyProtection, tcti: String) throws {
        let configuration = try parse("[Daemon]\n\(lines)\n")
        #expect(configuration.keyProtection == protection)
        #expect(configuration.tpm2Device == tcti)
        #expect(configuration.problems.isEmpty)
    }

    @Test(arguments: ["KeyProtection=TPM2", "KeyProtection=tpm", "KeyProtection=hardware",
                      "TPM2Device=/dev/tpmrm0 x", "TPM2Device=Device:/dev/tpmrm0", "TPM2Device=:path=/x"])
    func invalidKeyProtectionSettingsStopTheStart(line: String) {
        #expect(throws: ConfigurationError.self) { try parse("[Daemon]\n\(line)\n") }
    }
}
