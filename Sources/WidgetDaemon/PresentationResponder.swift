import FoundationEssentials
import SecureMemory
import WidgetModel

/// The fast answer to `GetPresentation`: the encoded replies (``PresentationCache``),
/// the memory of request messages that leads to them (``PresentationRequestTable``),
/// and the connections' permits to be answered from it.
///
/// Structural rule: every cached reply was made under ``stamp``, the key state and
/// settings now in force. The stamp changes in one place only, ``update(to:)``, which
/// `DeviceController.apply(_:answer:)` (the one entry point of every device change) calls after
/// the change; replies made under another stamp are zeroed there.
///
/// Loop only.
struct PresentationResponder {
    /// The most distinct `GetPresentation` messages remembered; beyond it they are all forgotten.
    static let maxRememberedRequests = 4096
    /// The longest message remembered: a real request is about 100 bytes, and padded
    /// ones must not make the memory of requests a way to fill the daemon's memory.
    static let maxRememberedRequestBytes = 512

    /// Encoded presentations, reused until what they show changes.
    private(set) var cache: PresentationCache
    /// `GetPresentation` messages seen, by their exact bytes, and the cache slot that
    /// answers each: hosts repeat the same request, and recognising it spares decoding it.
    private var requests = PresentationRequestTable(
        capacity: Self.maxRememberedRequests, maxMessageBytes: Self.maxRememberedRequestBytes)
    /// Counts configuration reloads; a connection remembers the count under which its
    /// peer was allowed cached reads (see ``reply(to:now:permit:protection:isPermitted:)``).
    private(set) var permitGeneration: UInt64 = 1
    /// The key state and settings every cached reply was made under.
    private(set) var stamp: PresentationCache.Stamp

    init(limit: Int, stamp: PresentationCache.Stamp) {
        cache = PresentationCache(limit: limit)
        self.stamp = stamp
        cache.removeAll(notMatching: stamp)
    }

    /// A repeated `GetPresentation` answered from the cache without decoding it, or
    /// `nil`. `isPermitted` is asked only when the connection's `permit` is not the
    /// current ``permitGeneration`` (its first cached read, or after a reload).
    @inline(__always)
    func reply(
        to message: UnsafeRawBufferPointer, now: Date, permit: inout UInt64, protection: inout ReplyProtection?,
        isPermitted: () -> Bool
    ) -> UnsafeRawBufferPointer? {
        guard let slot = requests.slot(for: message), let reply = cache.replyBytes(in: slot, now: now) else { return nil }
        assert(slot.stamp == stamp, "a cached reply was served under another stamp")
        if permit != permitGeneration {
            guard isPermitted() else { return nil }
            permit = permitGeneration
        }
        protection = slot.protection
        return reply
    }

    /// The cached reply of `widget` on `surface`, valid at `now`, and what it protects.
    func reply(_ widget: WidgetID, _ surface: Surface, now: Date) -> (SecureBytes, ReplyProtection?)? {
        guard let reply = cache.reply(widget, surface, stamp: stamp, now: now) else { return nil }
        return (reply, cache.slot(widget, surface)?.protection)
    }

    /// Keeps a freshly made reply, made under the current stamp.
    mutating func insert(
        _ widget: WidgetID, _ surface: Surface, reply: SecureBytes, protection: ReplyProtection?, validUntil: Date?
    ) {
        cache.insert(widget, surface, reply: reply, protection: protection, stamp: stamp, validUntil: validUntil)
    }

    /// Remembers `message` as a request answered by the reply of `widget` on `surface`.
    mutating func remember(_ message: UnsafeRawBufferPointer, for widget: WidgetID, _ surface: Surface) {
        guard let slot = cache.slot(widget, surface) else { return }
        requests.remember(message, slot: slot)
    }

    /// Zeroes a widget's replies: its timeline changed, or a write of it was accepted.
    mutating func forget(_ widget: WidgetID) { cache.remove(widget) }

    /// Zeroes every reply (a wipe, new registrations).
    mutating func forgetAll() { cache.removeAll() }

    /// The key state or settings changed (only `DeviceController.apply(_:answer:)` calls this):
    /// zeroes the replies made under another stamp. Returns whether the stamp changed.
    mutating func update(to current: PresentationCache.Stamp) -> Bool {
        guard current != stamp else { return false }
        cache.removeAll(notMatching: current)
        stamp = current
        return true
    }

    /// A reloaded configuration: every connection's permit is checked again.
    mutating func revokePermits() { permitGeneration += 1 }
}
