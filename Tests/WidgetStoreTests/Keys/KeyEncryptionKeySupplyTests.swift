import Testing
import WidgetCrypto
@testable import StoreKeys
@testable import WidgetStore

/// Keys made ahead are fresh, each taken once, and zeroed when dropped.
@Suite struct KeyEncryptionKeySupplyTests {
    @Test func everyTakeIsAFreshExchangeWithTheRecipient() throws {
        let supply = KeyEncryptionKeySupply()
        let recipient = try KeyPair.generate()
        var ephemeralKeys: Set<PublicKey> = []
        for _ in 0..<6 {
            let kek = try supply.take(for: recipient.publicKey)
            #expect(kek.recipient == recipient.publicKey)
            ephemeralKeys.insert(kek.ephemeralPublicKey)
            // The recipient recovers the same key: it is a real exchange, made ahead or not.
            let recovered = try KeyEncryptionKey.recover(ephemeral: kek.ephemeralPublicKey, keyPair: recipient)
            #expect(recovered.constantTimeEquals(kek.key))
            kek.zero()
            supply.drain()
        }
        #expect(ephemeralKeys.count == 6, "no key-encryption key is handed out twice")
    }

    @Test func takingStartsTheNextAndRemoveAllDropsIt() throws {
        let supply = KeyEncryptionKeySupply()
        let recipient = try KeyPair.generate()
        _ = try supply.take(for: recipient.publicKey)
        supply.drain()
        #expect(supply.readyCount == 1)
        supply.removeAll()
        #expect(supply.readyCount == 0)
        // A key being made when removeAll ran is dropped when it is done, not kept.
        supply.prepare(for: try KeyPair.generate().publicKey)
        supply.removeAll()
        supply.drain()
        #expect(supply.readyCount == 0)
    }
}
