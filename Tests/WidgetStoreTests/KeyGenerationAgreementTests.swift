import Testing
@testable import StoreKeys
@testable import StoreLedger

/// The keybag and the timeline file format name class key generations alike without
/// seeing each other (StoreKeys and StoreLedger are sibling targets): the store, above
/// both, hands the keybag's generation to the file it seals.
@Suite struct KeyGenerationAgreementTests {
    @Test func classDIsNamedAlikeByTheKeybagAndByAFileHeader() {
        // Compiles only while both name the same type.
        let header: TimelineFile.KeyGeneration = Keybag.classDGeneration
        #expect(header == TimelineFile.classDKeyGeneration)
    }
}
