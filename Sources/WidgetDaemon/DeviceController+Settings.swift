import FoundationEssentials
import Logging
import Varlink
import VarlinkTransport
import WidgetCrypto
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// io.widgetd.Device's settings handlers (DESIGN §5): read and written through
/// ``DeviceController/apply(_:answer:)``, kept in the ``StoredSettings``.
extension DeviceController {
    func getSettings(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        context.reply(SettingsReply(settings: settings))
    }

    /// Parked: its turn comes after the device's writes before it (``DeviceWrites``), so
    /// the settings it changes are the ones those left; the file is written off the loop
    /// and the call answered once it is durable.
    func setSettings(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let parameters = try call.decodedParameters(SetSettingsParameters.self)
        let access = parameters.lockScreenWidgetsAccess
        let hiddenOnLockScreen = try Self.widgetIDs(parameters.hiddenLockScreenWidgets, "hiddenLockScreenWidgets")
        let hideSensitive = try parameters.hideSensitiveComplications.map { (text) throws(ServiceError) in
            guard let value = HideSensitiveComplications(rawValue: text) else {
                throw .invalidParameter("hideSensitiveComplications")
            }
            return value
        }
        let hiddenComplications = try Self.widgetIDs(parameters.hiddenComplications, "hiddenComplications")
        writes.take { [unowned self] done in
            var new = settings
            if let access { new.lockScreenWidgetsAccess = access }
            if let hiddenOnLockScreen { new.hiddenLockScreenWidgets = hiddenOnLockScreen }
            if let hideSensitive { new.hideSensitiveComplications = hideSensitive }
            if let hiddenComplications { new.hiddenComplications = hiddenComplications }
            // Saved even if unchanged while unreadable: setting them is what ends the restriction.
            guard new != settings || settingsUnreadable else {
                context.reply(SettingsReply(settings: settings))
                return done()
            }
            let write: SettingsWrite
            do throws(ServiceError) { write = try storedSettings.write(new) } catch {
                context.fail(with: error, method: WidgetdMethod.setSettings.fullName)
                return done()
            }
            writes.write({ write.perform() }) { [unowned self] written in
                do throws(ServiceError) {
                    try ServiceError.fromStore { () throws(StoreError) in try written.get() }
                    try apply(.settings(new)) {
                        context.logger.info("settings changed", event: "settings_changed")
                        context.reply(SettingsReply(settings: settings))
                    }
                } catch {
                    context.fail(with: error, method: WidgetdMethod.setSettings.fullName)
                }
                done()
            }
        }
    }

    /// The widget ids of a list parameter, `nil` when it is absent.
    private static func widgetIDs(_ texts: [String]?, _ parameter: String) throws(ServiceError) -> [WidgetID]? {
        guard let texts else { return nil }
        do { return try texts.map { try WidgetID($0) } } catch { throw .invalidParameter(parameter) }
    }
}
