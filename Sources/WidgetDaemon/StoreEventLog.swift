import Logging
import WidgetStore

/// The daemon's log of what the store finds outside any call (`StoreEventReporter`).
final class StoreEventLog: StoreEventReporter {
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func entryRefused(_ error: StoreError) {
        logger.warning("timeline entry refused, skipped", event: "entry_refused", error: error)
    }

    func ledgerRebuilt(_ rebuild: LedgerRebuild) {
        logger.critical(
            "--start-over: the lost catalog was rebuilt from the timeline files; a file rolled back before the loss cannot be told, and files that did not open were left out",
            event: "catalog_rebuilt",
            metadata: ["restored": "\(rebuild.restored)", "excluded": "\(rebuild.excluded.joined(separator: " "))"])
    }
}
