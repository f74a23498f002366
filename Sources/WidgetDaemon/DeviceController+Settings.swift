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
        var changes: [(inout Settings) -> Void] = []
        if let access = parameters.lockScreenWidgetsAccess { changes.append { $0.lockScreenWidgetsAccess = access } }
        if let hidden = parameters.hiddenLockScreenWidgets {
            let widgets: [WidgetID]
            do { widgets = try hidden.map { try WidgetID($0) } } catch {
                throw .invalidParameter("hiddenLockScreenWidgets")
            }
            changes.append { $0.hiddenLockScreenWidgets = widgets }
        }
        if let hide = parameters.hideSensitiveComplications {
            guard let value = HideSensitiveComplications(rawValue: hide) else {
                throw .invalidParameter("hideSensitiveComplications")
            }
            changes.append { $0.hideSensitiveComplications = value }
        }
        if let hidden = parameters.hiddenComplications {
            let widgets: [WidgetID]
            do { widgets = try hidden.map { try WidgetID($0) } } catch {
                throw .invalidParameter("hiddenComplications")
            }
            changes.append { $0.hiddenComplications = widgets }
        }
        writes.take { [unowned self] done in
            var new = settings
            for change in changes { change(&new) }
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
}
