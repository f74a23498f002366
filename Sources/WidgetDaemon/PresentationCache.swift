import FoundationEssentials
import SecureMemory
import Varlink
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
/// `sodium_malloc` allocation, and those are limited (four mappings each: after about
/// 16,000 live ones `vm.max_map_count` is reached and the allocation fails).
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

    /// Where one widget's reply on one surface is kept while it is cached.
    ///
    /// The memory of requests (``PresentationRequestTable``) points at slots, so a
    /// repeated request reaches its reply with one lookup of its bytes. A slot dropped
    /// from the cache is emptied at once (its reply zeroed and released), so a request
    /// still pointing at it misses and takes the ordinary path, which points it at the
    /// widget's new slot.
    final class Slot {
        let widget: WidgetID
        let surface: Surface
        /// The encoded reply, in secure memory; `nil` once dropped from the cache.
        fileprivate(set) var reply: SecureBytes?
        /// A view of `reply`'s bytes (empty once dropped), for the hot path: reading it
        /// costs no retain and release of the reply, as returning `reply` does. Valid
        /// while `reply` holds its memory: a cached reply is never appended to (the only
        /// way a `SecureBytes` moves its bytes), and ``empty()`` clears the view with it.
        fileprivate(set) var replyBytes: UnsafeRawBufferPointer
        /// What the reply was made under.
        fileprivate(set) var stamp: Stamp
        /// The cache's ``PresentationCache/generation`` when `stamp` was its current
        /// stamp; 0, which is never current, otherwise. Compared instead of the stamp on
        /// the hot path: one integer instead of the settings.
        fileprivate(set) var generation: UInt64
        /// The presentation changes by itself at this instant (`distantFuture`: never).
        fileprivate(set) var validUntil: Date
        /// The protected content the reply shows (`nil` for a placeholder, which shows none):
        /// a copy its host leaves unsent goes when that class is purged.
        let protection: ReplyProtection?

        fileprivate init(
            widget: WidgetID, surface: Surface, reply: SecureBytes, protection: ReplyProtection?, stamp: Stamp,
            generation: UInt64, validUntil: Date
        ) {
            self.widget = widget
            self.surface = surface
            self.protection = protection
            self.reply = reply
            self.replyBytes = reply.withUnsafeBytes { $0 }
            self.stamp = stamp
            self.generation = generation
            self.validUntil = validUntil
        }

        /// Zeroes and releases the reply: the slot answers nothing any more.
        fileprivate func empty() {
            replyBytes = UnsafeRawBufferPointer(start: nil, count: 0)
            reply?.removeAll()
            reply = nil
            generation = 0
        }
    }

    private var slots: [Key: Slot] = [:]
    /// The stamp every cached reply was made under, as last set by
    /// ``removeAll(notMatching:)``; `nil` before the first.
    private(set) var currentStamp: Stamp?
    /// Counts the changes of ``currentStamp``; starts at 1, so a slot's 0 never matches.
    private(set) var generation: UInt64 = 1
    /// The most replies kept; beyond it an arbitrary one is dropped.
    let limit: Int

    init(limit: Int) { self.limit = max(limit, 1) }

    /// How many replies are cached.
    var count: Int { slots.count }

    /// The encoded reply for `widget` on `surface` if it was made under `stamp` and is still valid at `now`.
    func reply(_ widget: WidgetID, _ surface: Surface, stamp: Stamp, now: Date) -> SecureBytes? {
        guard let slot = slots[Key(widget: widget, surface: surface)], slot.stamp == stamp, now < slot.validUntil else { return nil }
        return slot.reply
    }

    /// The slot of `widget` on `surface` while a reply is cached for it.
    func slot(_ widget: WidgetID, _ surface: Surface) -> Slot? {
        slots[Key(widget: widget, surface: surface)]
    }

    /// The reply in `slot` as a view of its secure memory, if it is still cached, was
    /// made under ``currentStamp`` and is still valid at `now`: the hot path's check, with
    /// no hashing and no stamp compare. Valid until the cache next changes: what the event
    /// loop sends, with no retain or release per request.
    @inline(__always)
    func replyBytes(in slot: Slot, now: Date) -> UnsafeRawBufferPointer? {
        guard slot.generation == generation, now < slot.validUntil else { return nil }
        let bytes = slot.replyBytes
        return bytes.count > 0 ? bytes : nil
    }

    /// Keeps `reply` (which the cache now owns; it must not be appended to) for `widget`
    /// on `surface`; `protection` is what protected content it shows, if any.
    mutating func insert(
        _ widget: WidgetID, _ surface: Surface, reply: SecureBytes, protection: ReplyProtection?, stamp: Stamp,
        validUntil: Date?
    ) {
        let key = Key(widget: widget, surface: surface)
        slots.removeValue(forKey: key)?.empty()
        if slots.count >= limit, let victim = slots.first?.key {
            slots.removeValue(forKey: victim)?.empty()
        }
        slots[key] = Slot(
            widget: widget, surface: surface, reply: reply, protection: protection, stamp: stamp,
            generation: stamp == currentStamp ? generation : 0, validUntil: validUntil ?? .distantFuture)
    }

    /// Drops and zeroes a widget's replies on every surface.
    mutating func remove(_ widget: WidgetID) {
        for surface in Surface.allCases {
            slots.removeValue(forKey: Key(widget: widget, surface: surface))?.empty()
        }
    }

    /// Drops and zeroes every reply.
    mutating func removeAll() {
        for slot in slots.values { slot.empty() }
        slots.removeAll()
    }

    /// Drops and zeroes the replies made under any stamp but `current`, which becomes the
    /// current stamp: after a lock or purge, content replies must not outlive the keys
    /// that made them.
    mutating func removeAll(notMatching current: Stamp) {
        for (key, slot) in slots where slot.stamp != current {
            slot.empty()
            slots.removeValue(forKey: key)
        }
        if current != currentStamp {
            currentStamp = current
            generation += 1
            for slot in slots.values { slot.generation = generation }
        }
    }
}
