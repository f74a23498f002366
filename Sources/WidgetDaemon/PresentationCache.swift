import Foundation
import Varlink
import WidgetCrypto
import WidgetModel

/// Encoded `GetPresentation` replies, reused until what they show can change.
///
/// A presentation costs a timeline decode, the presentation rules and a JSON encode
/// (hundreds of µs); it changes only when its timeline is written or deleted, when an
/// entry's date or the reload date is reached, when keys are released or purged, or
/// when the settings or the registrations change. Each entry is therefore kept with
/// the key state and settings it was made under (its ``Stamp``) and the instant it
/// stops being true; a lookup under another stamp or after that instant misses.
/// Writes and deletes drop their widget's entries explicitly.
///
/// A content-mode reply holds decrypted content, so every reply lives in secure
/// memory and is zeroed when dropped; the service drops them all on lock and purge
/// (a different stamp) and on wipe. The number of entries is bounded: each is one
/// `sodium_malloc` allocation, and those are limited (see NOTES.md).
struct PresentationCache {
    /// What a presentation was computed under, besides its timeline and the time.
    struct Stamp: Equatable {
        let state: DeviceState
        let passcodeSet: Bool
        /// The classes whose keys were held, one bit per `ProtectionClass.allCases` index.
        let availableClasses: UInt8
        let settings: Settings
    }

    private struct Key: Hashable {
        let widget: WidgetID
        let surface: Surface
    }

    private struct Entry {
        let reply: SecureBytes
        let stamp: Stamp
        /// The presentation changes by itself at this instant (`nil`: never).
        let validUntil: Date?
    }

    private var entries: [Key: Entry] = [:]
    /// The most replies kept; beyond it an arbitrary one is dropped.
    let limit: Int

    init(limit: Int) { self.limit = max(limit, 1) }

    /// How many replies are cached.
    var count: Int { entries.count }

    /// The encoded reply for `widget` on `surface` if it was made under `stamp` and is still valid at `now`.
    func reply(_ widget: WidgetID, _ surface: Surface, stamp: Stamp, now: Date) -> SecureBytes? {
        guard let entry = entries[Key(widget: widget, surface: surface)], entry.stamp == stamp else { return nil }
        if let validUntil = entry.validUntil, now >= validUntil { return nil }
        return entry.reply
    }

    /// Keeps `reply` (which the cache now owns) for `widget` on `surface`.
    mutating func insert(_ widget: WidgetID, _ surface: Surface, reply: SecureBytes, stamp: Stamp, validUntil: Date?) {
        let key = Key(widget: widget, surface: surface)
        entries.removeValue(forKey: key)?.reply.removeAll()
        if entries.count >= limit, let victim = entries.first?.key {
            entries.removeValue(forKey: victim)?.reply.removeAll()
        }
        entries[key] = Entry(reply: reply, stamp: stamp, validUntil: validUntil)
    }

    /// Drops and zeroes a widget's replies on every surface.
    mutating func remove(_ widget: WidgetID) {
        for surface in Surface.allCases {
            entries.removeValue(forKey: Key(widget: widget, surface: surface))?.reply.removeAll()
        }
    }

    /// Drops and zeroes every reply.
    mutating func removeAll() {
        for entry in entries.values { entry.reply.removeAll() }
        entries.removeAll()
    }

    /// Drops and zeroes the replies made under any stamp but `current`: after a lock or
    /// purge, content replies must not outlive the keys that made them.
    mutating func removeAll(notMatching current: Stamp) {
        for (key, entry) in entries where entry.stamp != current {
            entry.reply.removeAll()
            entries.removeValue(forKey: key)
        }
    }
}
