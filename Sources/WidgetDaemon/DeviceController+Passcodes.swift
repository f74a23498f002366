import FoundationEssentials
import Logging
import StoreKeys
import Varlink
import VarlinkTransport
import WidgetCrypto
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// io.widgetd.Device's passcode handlers: `SetPasscode` and `Unlock`, derived off the
/// loop one at a time (``PasscodeQueue``), judged on it, their keybag written off it
/// (``DeviceWrites``), and applied through ``DeviceController/apply(_:answer:)``.
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

    /// A passcode request's keys were derived, and its turn came: they are judged on the
    /// loop, the keybag the judgement writes (if any) is written off it, and then the
    /// change is applied and answered; `done` is called once it is.
    func finishPasscodeRequest(_ request: PasscodeRequest, _ derived: DerivedRequest, done: @escaping () -> Void) {
        let judgement: PasscodeJudgement
        do throws(StoreError) {
            switch derived {
            case .unlock(let keys): judgement = try store.judgeUnlock(keys, now: scheduler.clocks)
            case .passcodeChange(let keys): judgement = try store.judgeSetPasscode(keys, now: scheduler.clocks)
            }
        } catch {
            answer(request) { () throws(ServiceError) in throw .store(error) }
            return done()
        }
        guard let write = judgement.write else {
            applyJudgement(judgement, written: nil, of: request)
            return done()
        }
        writes.write({ write.perform() }) { [unowned self] written in
            applyJudgement(judgement, written: written, of: request)
            done()
        }
    }

    /// Applies a judged request (its keybag `written`) and answers it.
    private func applyJudgement(_ judgement: PasscodeJudgement, written: WrittenKeybag?, of request: PasscodeRequest) {
        let context = request.context
        let passcodeWasSet = store.passcodeSet
        answer(request) { () throws(ServiceError) in
            try apply(.passcode(judgement, written: written)) {
                if request.method == WidgetdMethod.unlock.fullName {
                    context.logger.notice("unlocked", event: "unlock")
                } else {
                    passcodeStep.passcodeChanged(logger: context.logger)
                    let event = !store.passcodeSet ? "passcode_removed" : (passcodeWasSet ? "passcode_changed" : "passcode_set")
                    context.logger.notice("passcode changed", event: event)
                }
                context.reply(Empty())
            }
        }
    }

    /// Runs `body`, which answers `request` when it succeeds; fails the call with what it
    /// throws, logging the failures an administrator follows.
    func answer(_ request: PasscodeRequest, _ body: () throws(ServiceError) -> Void) {
        let context = request.context
        do throws(ServiceError) {
            try body()
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
