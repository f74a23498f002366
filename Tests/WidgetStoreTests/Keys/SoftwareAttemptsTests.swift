import Foundation
import Testing
import WidgetCrypto
@testable import StoreKeys
@testable import WidgetStore

/// Software mode (no `PasscodeVerifier`): the keybag alone verifies a passcode and
/// counts its failures; and a keybag of the version before
/// the tangle blob still opens.
@Suite struct SoftwareAttemptsTests {
    private func keybag(_ f: Fixture) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: "\(f.state)/\(Keybag.fileName)")))
    }

    private func restore(_ bytes: [UInt8], keybagOf f: Fixture) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: "\(f.state)/\(Keybag.fileName)"))
    }

    @Test func withoutAVerifierTheKeybagAloneVerifiesAndCounts() throws {
        let f = Fixture()
        let store = try f.open()
        try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        #expect(store.attemptCounting == .software)
        #expect(store.custody.keybag.tangleBlob == nil)
        // The passcode key unwraps by itself: Argon2id tangled with the device key.
        let derived = try store.beginUnlock(now: .at(t0)).derive(secure("1234"))
        #expect(derived.verdict == .unverified)
        _ = try store.custody.keybag.unwrapNewestClassA(with: try #require(derived.key))
        store.lock(now: .at(t0))
        #expect(throws: StoreError.wrongPasscode(failedAttempts: 1, retryAfter: nil)) {
            try store.unlock(passcode: secure("0000"), now: .at(t0))
        }
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(store.failedAttempts == 0)
    }

    @Test func aVersion2KeybagOpensAndIsWrittenAsTheCurrentVersionAtItsNextChange() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
            try putOnePerClass(store)
            try store.foldJournal()
            try restore(try version2Keybag(of: store), keybagOf: f)
        }
        let store = try f.open()
        #expect(try keybag(f)[4] == Keybag.version2)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        for w in classOf.keys { #expect(text(try store.readBody(w, allowOpenClassB: true)) == "body of \(w)") }
        try store.setPasscode(current: secure("1234"), new: secure("5678"), now: .at(t0))
        #expect(try keybag(f)[4] == Keybag.version)
    }

    @Test func aVersion3KeybagOpensAsBindingNothingAndIsWrittenAsTheCurrentVersionAtItsNextChange() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
            let macKey = store.custody.subkeys.keybagMAC
            var content = Array(try store.custody.keybag.encoded(macKey: macKey).dropLast(Keybag.macByteCount))
            // The empty binding block (u32 length 0) is what version 4 added.
            #expect(content.suffix(4) == [0, 0, 0, 0])
            content.removeLast(4)
            content[4] = Keybag.version3
            let mac = try KeyedHash.hash(content, key: macKey, outputLength: Keybag.macByteCount)
            try restore(content + mac.withUnsafeBytes { Array($0) }, keybagOf: f)
        }
        let store = try f.open()
        #expect(try keybag(f)[4] == Keybag.version3)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        try store.setPasscode(current: secure("1234"), new: secure("5678"), now: .at(t0))
        #expect(try keybag(f)[4] == Keybag.version)
    }
}

/// The keybag of `store` as the version before the tangle blob wrote it (version 2): the
/// current encoding without its last four fields (the tangle's presence and block, the
/// rollback anchors, which are zero without a counter, and the empty binding block).
func version2Keybag(of store: TimelineStore) throws -> [UInt8] {
    let bag = store.custody.keybag
    #expect(bag.tangleBlob == nil)
    let macKey = store.custody.subkeys.keybagMAC
    var content = Array(try bag.encoded(macKey: macKey).dropLast(Keybag.macByteCount))
    // An absent blob (presence 0 and an empty block: u32 length 0), no anchors, no binding.
    #expect(content.suffix(25) == [UInt8](repeating: 0, count: 25))
    content.removeLast(25)
    content[4] = Keybag.version2
    let mac = try KeyedHash.hash(content, key: macKey, outputLength: Keybag.macByteCount)
    return content + mac.withUnsafeBytes { Array($0) }
}
