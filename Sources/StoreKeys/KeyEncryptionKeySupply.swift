import Dispatch
import FoundationEssentials
import WidgetCrypto
import WidgetdPOSIX

/// Key-encryption keys agreed ahead of need, for the classes a batch wraps by an
/// exchange (their secret not held): each batch still takes a fresh one (one
/// ephemeral X25519 exchange per batch and class, as `TimelineStore.commit` says), but
/// the two X25519 operations (≈ 50 µs each here) run in the background between
/// batches instead of on the write's path.
///
/// One key per class public key is kept ready; taking it starts the next. A key made
/// ahead has wrapped nothing yet, and one that has is zeroed by its batch, so what is
/// kept adds no way to read a stored file. Keys for public keys no longer in use (after
/// a wipe) are zeroed by `removeAll`.
package final class KeyEncryptionKeySupply: @unchecked Sendable {
    /// The process's supply (class public keys differ per store, so stores can share it).
    package static let shared = KeyEncryptionKeySupply()

    private let lock = ThreadLock()
    private var ready: [PublicKey: KeyEncryptionKey] = [:]
    private var making: Set<PublicKey> = []
    /// Bumped by `removeAll`, so that a key still being made for before it is dropped.
    private var generation = 0
    private let queue = DispatchQueue(label: "widgetd.kek-supply", qos: .utility)

    /// A fresh key agreed with `recipient`: the one made ahead, or a new one now.
    package func take(for recipient: PublicKey) throws(CryptoError) -> KeyEncryptionKey {
        let made = lock.withLock { ready.removeValue(forKey: recipient) }
        prepare(for: recipient)
        if let made { return made }
        return try KeyEncryptionKey.agree(with: recipient)
    }

    /// Starts making a key for `recipient` unless one is ready or on its way.
    package func prepare(for recipient: PublicKey) {
        let start: Int? = lock.withLock {
            guard ready[recipient] == nil, !making.contains(recipient) else { return nil }
            making.insert(recipient)
            return generation
        }
        guard let start else { return }
        queue.async {
            let key = try? KeyEncryptionKey.agree(with: recipient)
            let stale: KeyEncryptionKey? = self.lock.withLock {
                self.making.remove(recipient)
                guard let key, self.generation == start else { return key }
                self.ready[recipient] = key
                return nil
            }
            stale?.zero()
        }
    }

    /// Zeroes and forgets every key made ahead.
    package func removeAll() {
        let dropped: [KeyEncryptionKey] = lock.withLock {
            generation += 1
            defer { ready.removeAll() }
            return Array(ready.values)
        }
        for key in dropped { key.zero() }
    }

    /// How many keys are ready (for tests).
    package var readyCount: Int { lock.withLock { ready.count } }

    /// Waits until the keys being made are ready (for tests: no sleeping).
    package func drain() { queue.sync {} }
}
