import FoundationEssentials
import Logging
import Varlink
import VarlinkTransport
import WidgetCrypto
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// io.widgetd.Device's passcode handlers: `SetPasscode` and `Unlock`, derived off the
/// loop one at a time (``PasscodeQueue``) and applied through
/// ``DeviceController/apply(_:answer:)`` when their turn ends.
extension DeviceController {
    func setPasscode(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let parameters = try call.withParameterBytes { (bytes) throws(ServiceError) in
            try PasscodeParameters(bytes, members: ["current", "new"])
        }
        let current = parameters.value("current")
        let new = parameters.value("new")
        if let new, new.count == 0 { throw .invalidParameter("new") }
        passcodes.enqueue(.setPasscode(context, current: current, new: new, store: store, now: { [scheduler] in scheduler.clocks }))
    }

    func unlock(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let parameters = try call.withParameterBytes { (bytes) throws(ServiceError) in
            try PasscodeParameters(bytes, members: ["passcode"])
        }
        guard let passcode = parameters.value("passcode") else { throw .invalidParameter("passcode") }
        passcodes.enqueue(.unlock(
            context, passcode: passcode, arrived: store.lockEpoch, store: store, now: { [scheduler] in scheduler.clocks }))
    }

    /// A passcode request's turn ended: its derived change is applied (and recorded
    /// durably) before the answer.
    func finishPasscodeRequest(_ request: PasscodeRequest, _ outcome: Result<DeviceChange, StoreError>) {
        let context = request.context
        let passcodeWasSet = store.passcodeSet
        do throws(ServiceError) {
            let change = try ServiceError.fromStore { () throws(StoreError) in try outcome.get() }
            try apply(change) {
                if case .unlock = change {
                    context.logger.notice("unlocked", event: "unlock")
                } else {
                    passcodeStep.passcodeChanged(logger: context.logger)
                    let event = !store.passcodeSet ? "passcode_removed" : (passcodeWasSet ? "passcode_changed" : "passcode_set")
                    context.logger.notice("passcode changed", event: event)
                }
                context.reply(Empty())
            }
        } catch {
            switch error {
            case .store(.wrongPasscode(let failed, _)):
                context.logger.warning("unlock failed", event: "unlock_failed", metadata: ["failed_attempts": "\(failed)"])
            case .store(.unlockInterrupted):
                context.logger.notice("unlock interrupted by a lock", event: "unlock_interrupted")
            case .store(.wiped):
                context.logger.critical("wiped after failed attempts", event: "wiped")
            default:
                break
            }
            context.fail(with: error, method: request.method)
        }
    }
}
