import Logging
import Varlink
import VarlinkTransport
import WidgetStore
import WidgetdWire

/// Whether widgetd's passcode is in step with the user's login password (DESIGN §8).
///
/// `pam_widgetd.so` reports it out of step (`ReportPasscodeOutOfStep`) after a password
/// reset without the old password, or when widgetd refused a login password that the
/// PAM stack had accepted; while out of step the module sends nothing. A successful
/// `SetPasscode` (which needs the right current passcode whenever one is set) brings
/// it back. Kept in memory as recorded on disk, and out of step whenever the record
/// could not be read or written: the restrictive value costs only PAM's convenience.
final class PasscodeStep {
    private let store: any StoreDeviceFace
    /// What `GetStatus.passcodeInStep` says.
    private(set) var inStep: Bool

    init(store: any StoreDeviceFace, logger: Logger) {
        self.store = store
        inStep = store.loadPasscodeInStep()
        if !inStep { logger.notice("passcode out of step with the login password", event: "passcode_out_of_step") }
    }

    /// Marks the passcode out of step, durably before the caller is answered.
    func reportOutOfStep() throws(StoreError) {
        inStep = false
        try store.savePasscodeInStep(false)
    }

    /// A passcode was set, changed or removed by someone who knew it: in step again.
    func passcodeChanged(logger: Logger) {
        guard !inStep else { return }
        do {
            try store.savePasscodeInStep(true)
            inStep = true
            logger.notice("passcode back in step with the login password", event: "passcode_in_step")
        } catch {
            logger.error("passcode still recorded out of step", event: "passcode_step_not_saved", error: error)
        }
    }
}

extension DeviceController {
    /// `io.widgetd.Device.ReportPasscodeOutOfStep()`, admin only (the method table
    /// permits unlisted methods to administrators alone).
    func reportPasscodeOutOfStep(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        try ServiceError.fromStore { () throws(StoreError) in try passcodeStep.reportOutOfStep() }
        context.logger.warning("passcode reported out of step with the login password", event: "passcode_out_of_step")
        context.reply(Empty())
        // Monitors hear of it as of any change GetStatus shows (DESIGN §8).
        publishDeviceEvent(.state)
    }
}
