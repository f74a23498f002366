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

/// io.widgetd.Device's state handlers: status, lock, wipe (DESIGN §5). Each change
/// goes through ``DeviceController/apply(_:answer:)``.
extension DeviceController {
    func status() -> StatusReply {
        StatusReply(
            state: store.deviceState, passcodeSet: store.passcodeSet,
            classes: ProtectionClass.allCases.map { ClassStatus(class: $0, keyAvailable: store.isKeyAvailable($0)) },
            failedAttempts: store.failedAttempts, retryAfter: store.retryAfter(now: scheduler.clocks), settings: settings,
            warnings: warnings.isEmpty ? nil : warnings, passcodeInStep: passcodeStep.inStep,
            lockedBy: lockedBy?.rawValue, sessions: sessionFollower?.watchedSessions, protection: protection,
            classAGraceEndsIn: timersRemaining.classAGrace, passcodeRequiredIn: timersRemaining.passcodeRequired)
    }

    /// Seconds left on the key lifecycle's running timers, read from the deadlines the
    /// key timers are armed for: the class-A purge after a lock, and the inactivity
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
        // Parked until the writes accepted before it are durable (none then commits on
        // the loop), and until no keybag or settings write runs: the erase must not
        // race a file being written.
        let afterCommits = follower?.whenAcceptedWritesCommitted ?? { $0() }
        afterCommits { [unowned self] in
            writes.take { [unowned self] done in
                do throws(ServiceError) {
                    try apply(.wipe) {
                        context.logger.critical("crypto-erased by request", event: "wiped")
                        context.reply(Empty())
                    }
                } catch {
                    context.fail(with: error, method: WidgetdMethod.wipe.fullName)
                }
                done()
            }
        }
    }

    /// A reloaded configuration: new roles and providers apply to every connection's
    /// next call; keys and open streams are untouched.
    func reconfigure(_ authorization: Authorization, store configuration: StoreConfiguration) {
        // Throws only for store changes; a configuration makes none that can fail.
        try? apply(.configuration(authorization, configuration))
    }
}
