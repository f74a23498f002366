import Logging
import VarlinkTransport

extension CallContext {
    /// Logs a denial and answers `PermissionDenied`.
    func deny(
        _ method: String, widget: String? = nil, error: ServiceError = .permissionDenied(provider: nil, user: nil, group: nil)
    ) {
        let logger = widget.map { self.logger.with("widget.id", $0) } ?? self.logger
        logger.notice("permission denied", event: "permission_denied", metadata: ["method": method])
        fail(error.varlinkError)
    }

    /// Answers a call with the error its method threw, logging the ones an administrator
    /// must see through the call's logger: a store failure the client cannot act on
    /// (corruption, I/O), and an unexpected error (by its type only).
    func fail(with error: ServiceError, method: String) {
        switch error {
        case .store(let failure) where ServiceError.answering(failure) == nil:
            logger.error("store failure", event: "store_failure", error: failure, metadata: ["method": method])
        case .unexpected(let type):
            logger.error("method failed", event: "method_failed", error: type, metadata: ["method": method])
        default:
            break
        }
        fail(error.varlinkError)
    }
}
