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

    func setSettings(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let parameters = try call.decodedParameters(SetSettingsParameters.self)
        var new = settings
        if let access = parameters.lockScreenWidgetsAccess { new.lockScreenWidgetsAccess = access }
        if let hidden = parameters.hiddenLockScreenWidgets {
            do { new.hiddenLockScreenWidgets = try hidden.map { try WidgetID($0) } } catch {
                throw .invalidParameter("hiddenLockScreenWidgets")
            }
        }
        if let hide = parameters.hideSensitiveComplications {
            guard let value = HideSensitiveComplications(rawValue: hide) else {
                throw .invalidParameter("hideSensitiveComplications")
            }
            new.hideSensitiveComplications = value
        }
        if let hidden = parameters.hiddenComplications {
            do { new.hiddenComplications = try hidden.map { try WidgetID($0) } } catch {
                throw .invalidParameter("hiddenComplications")
            }
        }
        let changes = new != settings || settingsUnreadable
        try apply(.settings(new)) {
            if changes { context.logger.info("settings changed", event: "settings_changed") }
            context.reply(SettingsReply(settings: settings))
        }
    }
}
