import FoundationEssentials
import Glibc
import SecureMemory
import StoreAnchor
import WidgetdPOSIX

/// A keybag decided on the store's thread and written durably on any thread: the
/// daemon writes a passcode request's keybag off its loop, so that a slow disk's syncs
/// hold no other peer (`KeyCustody.judgeUnlock`, `judgeSetPasscode`, then `complete`
/// with what `perform` returned).
///
/// It needs nothing of the custody that may change meanwhile: the keybag is a value,
/// the MAC key a reference kept alive by this write, the anchor and the space reserve
/// take turns with their own locks. Only a wipe (which removes the keybag and replaces
/// the MAC key) or another keybag save must not run at the same time, and the store
/// refuses both while a judgement is out (`TimelineStore.isJudging`).
package struct KeybagWrite: @unchecked Sendable {
    package let keybag: Keybag
    package let stateDirectory: String
    package let macKey: SecureBytes
    package let anchor: RollbackAnchor
    package let roomOnFullDisk: @Sendable () -> Bool

    /// Writes the keybag, anchored to the rollback counter (`RollbackAnchor`: written
    /// first, then the counter incremented); on a full file system, once more with the
    /// store's space reserve given back. Returns the keybag as written (carrying its
    /// anchor values).
    package func perform() -> WrittenKeybag {
        WrittenKeybag(result: Result { () throws(KeyError) in
            var written = keybag
            try anchoringKeys { () throws(AnchoredSaveError<KeyError>) in
                try anchor.anchor([.keybag]) { (values) throws(KeyError) in
                    written.anchors = values
                    do throws(KeyError) {
                        try written.save(stateDirectory: stateDirectory, macKey: macKey)
                    } catch .file(.io(let operation, let path, let errno)) where errno.rawValue == ENOSPC {
                        guard roomOnFullDisk() else { throw .file(.io(operation: operation, path: path, errno: errno)) }
                        try written.save(stateDirectory: stateDirectory, macKey: macKey)
                    }
                }
            }
            return written
        })
    }
}

/// What `KeybagWrite.perform` did: the keybag as written, or why it was not.
package struct WrittenKeybag: @unchecked Sendable {
    package let result: Result<Keybag, KeyError>
}
