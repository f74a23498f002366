import Foundation
import Testing
import WidgetCrypto
import WidgetModel
@testable import StoreLedger
@testable import WidgetStore

/// A writer's scratch draws a file's body key and its seals' nonces at once: every
/// nonce its own fresh bytes, none shared with the key or another seal.
@Suite struct KeyScratchTests {
    @Test func oneDrawGivesAFreshBodyKeyAndDistinctNonces() throws {
        let scratch = try TimelineFile.KeyScratch()
        var keys: [[UInt8]] = []
        var nonces: [[UInt8]] = []
        for _ in 0..<2 {
            let refilled = scratch.refill()
            let drawn = (0..<TimelineFile.KeyScratch.noncesPerFile).map { refilled.withNonce($0) { Array($0) } }
            #expect(drawn.allSatisfy { $0.count == AEAD.nonceByteCount })
            nonces += drawn
            keys.append(scratch.bodyKey.withUnsafeBytes { Array($0) })
        }
        #expect(keys.allSatisfy { $0.count == AEAD.keyByteCount && $0 != [UInt8](repeating: 0, count: AEAD.keyByteCount) })
        #expect(keys[0] != keys[1])
        #expect(Set(nonces).count == nonces.count)
        // No nonce is a slice of a key it travels with.
        for key in keys {
            for nonce in nonces { #expect(!Array(key.prefix(AEAD.nonceByteCount)).elementsEqual(nonce)) }
        }
    }

    @Test(arguments: [ProtectionClass.complete, .none])
    func aFileSealedWithAScratchOpensAndEachSealingIsFresh(_ c: ProtectionClass) throws {
        let f = Fixture()
        let store = try f.open()
        try store.putTimeline(widgetA, protectionClass: c, family: nil, reloadDue: nil, body: secure("x"), placeholder: nil)
        try store.foldJournal()
        let path = try f.timelineFiles()[0]
        let metadata = TimelineMetadata(
            widget: widgetA, protectionClass: c, family: nil, generation: 5, reloadDue: nil, placeholder: nil)
        let kek = try KeyEncryptionKey.agree(with: store.classPublicKey(c))
        defer { kek.zero() }
        let scratch = try TimelineFile.KeyScratch()
        let seal = { () throws -> [UInt8] in
            try TimelineFile.encode(
                metadata, body: secure("sealed with a scratch"), wrap: .exchange(kek),
                metadataKey: store.custody.subkeys.timelineMetadata, keys: scratch)
        }
        let first = try seal()
        let second = try seal()
        #expect(first.count == second.count && first != second)
        // The three seals' nonces (metadata, body key, body) differ from each other and between sealings.
        let sealedFirst = try TimelineFile.parse(first, expected: widgetA, file: path)
        let sealedSecond = try TimelineFile.parse(second, expected: widgetA, file: path)
        let n = AEAD.nonceByteCount
        let nonces = try [sealedFirst, sealedSecond].flatMap { (sealed) throws -> [[UInt8]] in
            guard case .exchange(_, let wrappedBodyKey) = sealed.keys else { throw CocoaError(.coderInvalidValue) }
            return [Array(sealed.metadata.prefix(n)), Array(wrappedBodyKey.prefix(n)), Array(sealed.body.prefix(n))]
        }
        #expect(Set(nonces).count == nonces.count)
        #expect(scratch.bodyKey.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        #expect(FileManager.default.createFile(atPath: path, contents: Data(second)))
        store.closeTimeline(widgetA)
        #expect(text(try store.readBody(widgetA, allowOpenClassB: true)) == "sealed with a scratch")
    }
}
