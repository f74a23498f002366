import Testing
import WidgetTPM

/// TPM response codes are compared without the session, handle or parameter they blame.
@Suite struct ResponseCodeTests {
    @Test(arguments: [
        (UInt32(0x98E), TPM2ResponseCode.authFail), (0x08E, .authFail), (0x9A2, .badAuth), (0x921, .lockout),
        (0x902, .objectMemory), (0x903, .sessionMemory), (0x1DF, .integrity), (0x18B, .handle), (0x14A, .nvUninitialized),
    ])
    func responseCodeMatchesItsNameWhateverItBlames(raw: UInt32, name: TPM2ResponseCode) {
        #expect(TPM2ResponseCode(rawValue: raw).matches(name))
    }

    @Test func softwareLayerCodesAreNotTPMCodes() {
        // ESAPI's own "bad reference" (layer 7) is not the TPM's handle error.
        #expect(!TPM2ResponseCode(rawValue: 0x7_000B).matches(.handle))
        #expect(TPM2ResponseCode(rawValue: 0xA_000A).layer == 10)
    }
}
