import Dispatch
import Foundation
import WidgetCrypto
import WidgetModel

/// A `PutTimeline` call whose parameters are being decoded, validated and written
/// canonically off the loop (the largest share of a write's CPU), so that on two cores
/// the loop keeps framing the next calls and a commit runs beside the decoding.
///
/// The worker does only what depends on the bytes alone; the loop still decides
/// everything that depends on its state (who the caller is, which providers are
/// registered, the store's numbering), and in the order the calls arrived.
final class DecodingWrite: @unchecked Sendable {
    /// What the worker found: the parameters, and either the canonical body and
    /// placeholder or the validation error. The validation error is kept apart so that
    /// the loop answers `PermissionDenied` before it, as it did before decoding moved.
    struct Decoded {
        let parameters: PutTimelineParameters
        let timeline: Timeline
        let encoded: Result<(body: SecureBytes, placeholder: [UInt8]?), any Error>
    }

    /// The call; loop only.
    let context: CallContext
    let authority: PeerAuthority
    let method: String
    /// Set by the worker before it signals `done`; read by the loop after waiting.
    private(set) var outcome: Result<Decoded, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(context: CallContext, authority: PeerAuthority, method: String) {
        self.context = context
        self.authority = authority
        self.method = method
    }

    /// Decodes `parameters` (the call's bytes, in secure memory) on the calling thread.
    func decode(_ parameters: SecureBytes?, limits: TimelineLimits) {
        outcome = Result {
            let read = try parameters?.withUnsafeBytes { try PutTimelineParameters.read(from: $0) }
                ?? PutTimelineParameters.read(from: nil)
            let timeline = Timeline(entries: read.entries, policy: read.policy ?? .atEnd)
            let encoded = Result { () throws -> (body: SecureBytes, placeholder: [UInt8]?) in
                try TimelineValidator.validate(timeline, limits: limits)
                if let placeholder = read.placeholder { try TimelineValidator.validate(placeholder: placeholder, limits: limits) }
                return (try WidgetService.secureEncode(timeline), read.placeholder?.canonicalJSON)
            }
            return Decoded(parameters: read, timeline: timeline, encoded: encoded)
        }
        done.signal()
    }

    /// Whether the worker is done, waiting for it if `waiting`. Call once it returned true, never again.
    func finished(waiting: Bool) -> Bool {
        if waiting {
            done.wait()
            return true
        }
        return done.wait(timeout: .now()) == .success
    }
}
