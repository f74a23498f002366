import FoundationEssentials
import Logging
import WidgetModel
import WidgetStore

/// The user's settings as the store keeps them: JSON in the store's settings file.
///
/// Reading fails closed: a file that is missing from a store that is not new, or that
/// does not verify or parse, means the most restrictive settings until an
/// administrator sets new ones. A new (or wiped) store gets the documented defaults
/// written, so that its file is never missing later.
struct StoredSettings {
    let store: any StoreDeviceFace
    let logger: Logger

    /// The encoder for settings set by a call: sorted keys, so equal values give equal bytes.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The saved settings, and whether they could not be read (then the most
    /// restrictive ones, logged as `settings_unreadable`).
    func load() -> (Settings, unreadable: Bool) {
        let problem: any Error
        do {
            if let bytes = try store.loadSettings() {
                return (try JSONDecoder().decode(Settings.self, from: Data(bytes)), false)
            }
            guard !store.isFresh else {
                saveDefaults()
                return (Settings(), false)
            }
            problem = Missing()
        } catch {
            problem = error
        }
        logger.warning(
            "settings file unreadable; the most restrictive settings apply until an administrator sets them",
            event: "settings_unreadable", error: problem)
        return (.mostRestrictive, true)
    }

    /// What `settings_unreadable` logs when an old store has no settings file.
    private struct Missing: Error, CustomStringConvertible {
        var description: String { "missing" }
    }

    /// `settings`, to be written durably (on any thread) before the call that set them
    /// is answered.
    func write(_ settings: Settings) throws(ServiceError) -> SettingsWrite {
        let encoded: Data
        do { encoded = try Self.encoder.encode(settings) } catch { throw .unexpected(ErrorType(of: error)) }
        return store.settingsWrite(Array(encoded))
    }

    /// Writes the defaults of a new store (or a wiped one) as its settings file.
    func saveDefaults() {
        do { try store.saveSettings(Array(try JSONEncoder().encode(Settings()))) } catch {
            // Not fatal: the defaults apply now; the next start finds no file and closes them.
            logger.error("default settings not saved", event: "settings_not_saved", error: error)
        }
    }
}
