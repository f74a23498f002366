/// `STATE/wipe-in-progress`: made durable before a wipe destroys anything and removed
/// once the wipe is complete, so that a wipe stopped half way (a power cut, a failed
/// removal) is finished by the next open. Without it the open found a store with no
/// keybag beside the erased store's files: it made a fresh keybag and then served those
/// files (as authentication failures, under the same file names when the device key is
/// a credential) and replayed their journal.
///
/// The marker is the wipe's commit point: a cut before it is durable leaves the store as
/// it was; after it, the wipe happens, all of it. Planting it erases the store, which
/// anyone who may write the state directory can do anyway.
enum WipeMarker {
    static let fileName = "wipe-in-progress"

    /// Commits to the wipe: the marker, durably.
    static func set(stateDirectory: String) throws(StoreError) {
        try FileSystem.writeAtomically(directory: stateDirectory, name: fileName, bytes: [])
    }

    /// Whether a wipe was committed to and not completed.
    static func isSet(stateDirectory: String) -> Bool {
        FileSystem.exists("\(stateDirectory)/\(fileName)")
    }

    /// Records that the wipe is complete, durably.
    static func clear(stateDirectory: String) throws(StoreError) {
        try FileSystem.remove("\(stateDirectory)/\(fileName)")
        try FileSystem.syncDirectory(stateDirectory)
    }
}
