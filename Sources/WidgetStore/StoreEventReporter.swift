/// Who hears what the store finds on its own, outside any call, so that it is logged:
/// an entry of `timelines/` that indexing refused to open, and a lost catalog rebuilt.
/// The daemon's `StoreEventLog` implements it; held weakly by the store.
///
/// Threading: called on the store's thread.
package protocol StoreEventReporter: AnyObject {
    /// An entry that indexing refused to open (a FIFO, a symbolic link, a file of another
    /// user: `StoreError.unsafeEntry`); it was skipped and every other widget is listed.
    func entryRefused(_ error: StoreError)
    /// A lost catalog was rebuilt from the timeline files (at the unlock that proved
    /// the keybag; one rebuilt at open is in `OpenReport.rebuiltLedger` instead).
    func ledgerRebuilt(_ rebuild: LedgerRebuild)
}
