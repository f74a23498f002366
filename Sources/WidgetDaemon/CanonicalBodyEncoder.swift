import SecureMemory
import StrictJSON
import WidgetModel

/// Writes a timeline's canonical JSON (the body the store seals) straight into secure
/// memory, in one walk of the timeline for the usual size.
///
/// The walk writes into a scratch buffer of secure memory kept for the purpose, then the
/// bytes are copied into a buffer of exactly their size and the scratch is zeroed: the
/// writing walk costs as much as the counting walk it spares (≈ a quarter of a
/// `PutTimeline`'s decode in `widgetd-bench --only decode`), the copy a `memcpy`. A
/// body larger than the scratch is measured first and written again, exactly sized.
/// No heap copy of the content is made either way; the scratch holds it only between
/// the write and the copy.
///
/// Threading: loop only (one scratch, written by one call at a time).
final class CanonicalBodyEncoder {
    /// The scratch's size: a body under it takes one walk. A 3 KiB timeline's body fits
    /// four times over; the limits allow larger ones, which take two walks.
    static let scratchBytes = 16 * 1024

    /// Allocated at the first body; nil if secure memory refused it (every body then
    /// takes two walks).
    private var scratch: SecureBytes?
    private var scratchAllocated = false

    init() {}

    /// The scratch, allocated at its first use.
    private func allocatedScratch() -> SecureBytes? {
        if !scratchAllocated {
            scratchAllocated = true
            scratch = try? SecureBytes.zeroed(count: Self.scratchBytes)
        }
        return scratch
    }

    /// Lends the scratch to `body` (nil if secure memory refused it), which must leave
    /// it zeroed: a `PutTimeline`'s entries are written into it as the message is
    /// walked (`ProviderParameters`, `CanonicalEntries`).
    func withScratch<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer?) throws(E) -> R) throws(E) -> R {
        guard let scratch = allocatedScratch() else { return try body(nil) }
        return try scratch.withUnsafeMutableBytes { (buffer) throws(E) in try body(buffer) }
    }

    /// The canonical bytes of `timeline` in a buffer of exactly their size. The
    /// validator has rejected non-finite numbers already.
    func encode(_ timeline: Timeline) throws(ServiceError) -> SecureBytes {
        if let scratch = allocatedScratch() {
            let body = try scratch.withUnsafeMutableBytes { (buffer) throws(ServiceError) -> SecureBytes? in
                var writer = JSONWriter(into: buffer)
                timeline.write(to: &writer)
                let written = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(writer.count, buffer.count)])
                // The scratch holds nothing once this returns, whether the body fit or not.
                defer { SecretWipe.zero(written) }
                guard writer.fits else { return nil }
                do { return try SecureBytes(copying: UnsafeRawBufferPointer(written)) } catch {
                    throw .unexpected(ErrorType(of: error))
                }
            }
            if let body { return body }
        }
        return try Self.encodeMeasuringFirst(timeline)
    }

    /// Measures the canonical JSON first, then writes it into a buffer of exactly that
    /// size: two walks, no scratch.
    static func encodeMeasuringFirst(_ timeline: Timeline) throws(ServiceError) -> SecureBytes {
        let body: SecureBytes
        do { body = try SecureBytes.zeroed(count: timeline.canonicalJSONCount) } catch { throw .unexpected(ErrorType(of: error)) }
        body.withUnsafeMutableBytes { buffer in
            var writer = JSONWriter(into: buffer)
            timeline.write(to: &writer)
            // Both passes walk the same value the same way; anything else is a bug.
            precondition(writer.count == buffer.count, "the canonical JSON changed size between passes")
        }
        return body
    }
}
