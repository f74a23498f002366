import FoundationEssentials
import Logging
import Varlink
import VarlinkTransport
import WidgetCrypto
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// io.widgetd.Device's handlers: state, passcode, settings (DESIGN §5). Each change
/// they make goes through ``WidgetService/apply(_:)``.
extension WidgetService {
    func status() -> StatusReply {
        StatusReply(
            state: store.deviceState, passcodeSet: store.passcodeSet,
            classes: ProtectionClass.allCases.map { ClassStatus(class: $0, keyAvailable: store.isKeyAvailable($0)) },
            failedAttempts: store.failedAttempts, retryAfter: store.retryAfter(now: scheduler.clocks), settings: settings,
            warnings: warnings.isEmpty ? nil : warnings, passcodeInStep: passcodeStep.inStep,
            lockedBy: lockedBy?.rawValue, sessions: watchedSessions(), protection: protection,
            classAGraceEndsIn: timersRemaining.classAGrace, passcodeRequiredIn: timersRemaining.passcodeRequired)
    }

    /// Seconds left on the key lifecycle's running timers, read from the deadlines the
    /// wake timer is armed for: the class-A purge after a lock, and the inactivity
    /// restart of `RequirePasscodeAfterSec=`; `nil` when that timer is not running.
    var timersRemaining: (classAGrace: Double?, passcodeRequired: Double?) {
        let clocks = scheduler.clocks
        // Each on the clock it runs on; to the millisecond, as the difference of two
        // readings carries noise below it.
        func rounded(_ seconds: Double) -> Double { (max(0, seconds) * 1000).rounded() / 1000 }
        return (
            store.nextDeadline.map { rounded($0.timeIntervalSince(clocks.monotonic)) },
            store.requirePasscodeDue.map { rounded($0.timeIntervalSince(clocks.boottime)) })
    }

    /// `GetStatus.protection`: only what is in force. In tpm2 mode the TPM seals the
    /// device key and counts passcode attempts (`TimelineStore.attemptCounting`), and its
    /// NV counter anchors the keybag and the catalog (`rollback` `tpm2`); otherwise the
    /// catalog alone detects a rolled-back file (`catalog`). DESIGN §9.
    var protection: Protection {
        Protection(
            deviceKey: store.deviceKeyKind.rawValue, attempts: store.attemptCounting.rawValue,
            rollback: store.isRollbackAnchored ? "tpm2" : "catalog")
    }

    /// What `GetStatus` warns of now, in `StatusWarning` order.
    var warnings: [StatusWarning] {
        StatusWarning.allCases.filter { warning in
            switch warning {
            case .settingsUnreadable: settingsUnreadable
            case .memoryNotLocked: memoryNotLocked
            }
        }
    }

    func getStatus(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        context.reply(status())
    }

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
            fail(context, with: error, method: request.method)
        }
    }

    /// Locks at once, ahead of every Unlock still being derived or queued: those that
    /// arrived before it fail when their turn ends (`UnlockInterrupted`, or
    /// `WrongPasscode` counted as ever), so once this reply is sent the device stays locked.
    func lock(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        try apply(.lock(.client)) {
            context.logger.info("locked", event: "lock")
            context.reply(Empty())
        }
    }

    func wipe(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let parameters = try call.decodedParameters(WipeParameters.self)
        guard parameters.confirm == "WIPE" else { throw .invalidParameter("confirm") }
        try apply(.wipe) {
            context.logger.critical("crypto-erased by request", event: "wiped")
            context.reply(Empty())
        }
    }

    func getSettings(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        context.reply(SettingsReply(settings: settings))
    }

    func setSettings(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let parameters = try call.decodedParameters(SetSettingsParameters.self)
        var new = settings
        if let access = parameters.lockScreenWidgetsAccess { new.lockScreenWidgetsAccess = access }
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

    func monitor(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let event = deviceEvent(.state)
        guard context.wantsMore else { return context.reply(DeviceEventReply(event: event)) }
        context.stream(DeviceEventReply(event: event))
        subscriptions.addMonitor(context)
    }

    /// A reloaded configuration: new roles and providers apply to every connection's
    /// next call; keys and open streams are untouched.
    func reconfigure(_ authorization: Authorization, store configuration: StoreConfiguration) {
        // Throws only for store changes; a configuration makes none that can fail.
        try? apply(.configuration(authorization, configuration))
    }
}
