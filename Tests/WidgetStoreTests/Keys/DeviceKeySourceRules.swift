import Foundation
import SecureMemory
import Testing
import WidgetModel
@testable import StoreKeys
@testable import WidgetStore

/// The device key comes from an injected `DeviceKeySource`: another custody (a TPM)
/// is a new type given to the store, and the store asks it for nothing but the key.
@Suite struct DeviceKeySourceRules {
    /// A source that keeps the key in memory, as a TPM keeps it out of the state directory.
    final class MemorySource: DeviceKeySource {
        var key: SecureBytes?
        var destroyed = 0
        /// Where it says its state outside the directory is (a TPM's NV indices).
        var keybagBinding: [UInt8] = []

        func loadDeviceKey(mayCreate: Bool) throws(KeyError) -> (key: SecureBytes, kind: DeviceKeyKind) {
            if key == nil {
                guard mayCreate else { throw .deviceKey(.missing(path: "memory")) }
                key = try KeyError.secureMemory { () throws(SecureMemoryError) in try SecureBytes.random(count: DeviceKey.byteCount) }
            }
            return (try KeyError.secureMemory { () throws(SecureMemoryError) in try key!.copy() }, .tpm2)
        }

        func destroyDeviceKey() throws(KeyError) {
            destroyed += 1
            key = nil
        }
    }

    private func open(_ f: Fixture, _ source: MemorySource) throws -> TimelineStore {
        try TimelineStore(stateDirectory: f.state, deviceKeySource: source, configuration: .test, now: t0)
    }

    @Test func anInjectedSourceKeepsTheKeyAndTheStoreKeepsNoFileOfIt() throws {
        let f = Fixture()
        let source = MemorySource()
        do {
            let store = try open(f, source)
            #expect(store.deviceKeyKind == .tpm2)
            try putOnePerClass(store)
            try store.foldJournal()
        }
        #expect(!FileManager.default.fileExists(atPath: "\(f.state)/\(FileDeviceKeySource.stateFileName)"))
        let store = try open(f, source)
        for w in classOf.keys { #expect(text(try store.readBody(w, allowOpenClassB: true)) == "body of \(w)") }
        // Another key opens nothing: the keybag's MAC fails.
        let other = MemorySource()
        other.key = try SecureBytes.random(count: DeviceKey.byteCount)
        #expect(throws: StoreError.self) { try open(f, other) }
    }

    @Test func aWipeAsksTheSourceToDestroyTheKeyAndTakesANewOne() throws {
        let f = Fixture()
        let source = MemorySource()
        let store = try open(f, source)
        let before = try #require(source.key).copy()
        try store.wipe()
        #expect(source.destroyed == 1)
        #expect(!(try #require(source.key).constantTimeEquals(before)))
        #expect(try store.listTimelines().isEmpty)
    }

    @Test func aKeybagIsOnlyOpenedWithTheBindingItWasMadeWith() throws {
        let f = Fixture()
        let source = MemorySource()
        source.keybagBinding = [0x01, 0x80, 0x58, 0x00, 0x01, 0x80, 0x58, 0x01]
        _ = try open(f, source)
        // The same key, pointed at another counter: refused before the counter is read.
        source.keybagBinding = [0x01, 0x80, 0x58, 0x02, 0x01, 0x80, 0x58, 0x03]
        let error = #expect(throws: StoreError.self) { try open(f, source) }
        guard case .rollbackCounter = error else { Issue.record("\(String(describing: error))"); return }
        source.keybagBinding = [0x01, 0x80, 0x58, 0x00, 0x01, 0x80, 0x58, 0x01]
        _ = try open(f, source)
    }

    @Test func aMissingKeyBesideAKeybagIsNotRemade() throws {
        let f = Fixture()
        let source = MemorySource()
        _ = try open(f, source)
        source.key = nil
        #expect(throws: StoreError.deviceKey(.missing(path: "memory"))) { try open(f, source) }
        #expect(source.key == nil)
    }
}
