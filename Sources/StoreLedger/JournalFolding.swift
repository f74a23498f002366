/// Where the journal folds a full region into the timeline files (`Journal`).
package enum JournalFolding: Sendable {
    /// On a worker thread, while appends go on in the other region: a fold does not
    /// hold the writers (the daemon).
    case inBackground
    /// At once, by the append that filled the region, as a single-region journal
    /// would: for tests that must know when a fold ran.
    case atOnce
}
