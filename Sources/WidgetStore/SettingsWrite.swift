import SecureMemory
import StoreFiles
import StoreKeys

/// Settings bytes to be written as the settings file atomically and durably, on any
/// thread: the daemon writes them off its loop (`TimelineStore.settingsWrite`). The MAC
/// key is a reference kept alive by this write; the caller runs no wipe meanwhile.
package struct SettingsWrite: @unchecked Sendable {
    let bytes: [UInt8]
    let stateDirectory: String
    let macKey: SecureBytes

    /// Writes the file; when this returns, it survives a crash.
    package func perform() -> Result<Void, StoreError> {
        Result { () throws(StoreError) in try SettingsFile.save(bytes, stateDirectory: stateDirectory, macKey: macKey) }
    }
}

extension SettingsFile {
    /// Writes `settings`, refusing more than `maximumBytes`: the store's error, for the
    /// daemon's `SetSettings`.
    static func save(_ settings: [UInt8], stateDirectory: String, macKey: SecureBytes) throws(StoreError) {
        guard settings.count <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        try fromFiles { () throws(FileError) in try write(settings, stateDirectory: stateDirectory, macKey: macKey) }
    }
}
