import Dispatch
import FoundationEssentials
import Logging
import Varlink
import WidgetCrypto
import WidgetModel
import WidgetStore

/// io.widgetd.Device: state, passcode, settings (DESIGN §5).
extension WidgetService {
    func status() -> StatusReply {
        let now = now()
        return StatusReply(
            state: store.deviceState, passcodeSet: store.passcodeSet,
            classes: ProtectionClass.allCases.map { ClassStatus(class: $0, keyAvailable: store.isKeyAvailable($0)) },
            failedAttempts: store.failedAttempts, retryAfter: store.retryAfter(now: now), settings: settings,
            warnings: warnings.isEmpty ? nil : warnings, sessions: watchedSessions())
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

    func getStatus(_ call: VarlinkCall, _ context: CallContext) throws {
        context.reply(status())
    }

    func setPasscode(_ call: VarlinkCall, _ context: CallContext) throws {
        let parameters = try call.withParameterBytes { try PasscodeParameters($0, members: ["current", "new"]) }
        let current = parameters.value("current")
        let new = parameters.value("new")
        if let new, new.count == 0 { throw ServiceError.invalidParameter("new") }
        pendingPasscodeRequests.append(.setPasscode(context, current: current, new: new))
        startNextPasscodeRequest()
    }

    func unlock(_ call: VarlinkCall, _ context: CallContext) throws {
        let parameters = try call.withParameterBytes { try PasscodeParameters($0, members: ["passcode"]) }
        guard let passcode = parameters.value("passcode") else { throw ServiceError.invalidParameter("passcode") }
        pendingPasscodeRequests.append(.unlock(context, passcode: passcode, arrived: store.lockEpoch))
        startNextPasscodeRequest()
    }

    /// Starts the oldest waiting Unlock or SetPasscode: the checks on the loop, the
    /// KDFs off it, the verdict back on the loop, where it is recorded durably before
    /// the answer.
    func startNextPasscodeRequest() {
        guard !passcodeWorkInProgress, !pendingPasscodeRequests.isEmpty else { return }
        let request = pendingPasscodeRequests.removeFirst()
        let work: PasscodeWork
        do {
            switch request {
            case .unlock(_, let passcode, let arrived):
                work = .unlock(try store.beginUnlock(now: now(), lockEpoch: arrived), passcode: passcode)
            case .setPasscode(_, let current, let new):
                let change = try store.beginSetPasscode(hasCurrent: current != nil, hasNew: new != nil, now: now())
                work = .setPasscode(change, current: current, new: new)
            }
        } catch {
            fail(request.context, with: error, method: request.method)
            return startNextPasscodeRequest()
        }
        passcodeWorkInProgress = true
        let completion = LoopBound((service: self, request: request), loop: loop)
        DispatchQueue.global(qos: .userInitiated).async { [loop] in
            let outcome = work.derive()
            loop.execute { completion.value.service.finishPasscodeRequest(completion.value.request, outcome) }
        }
    }

    private func finishPasscodeRequest(_ request: PasscodeRequest, _ outcome: PasscodeWork.Outcome) {
        passcodeWorkInProgress = false
        defer { startNextPasscodeRequest() }
        let context = request.context
        let before = store.deviceState
        let passcodeWasSet = store.passcodeSet
        do {
            switch outcome {
            case .unlock(let result):
                try store.finishUnlock(result.get(), now: now())
                context.logger.notice("unlocked", event: "unlock")
            case .setPasscode(let result):
                try store.finishSetPasscode(result.get(), now: now())
                let event = !store.passcodeSet ? "passcode_removed" : (passcodeWasSet ? "passcode_changed" : "passcode_set")
                context.logger.notice("passcode changed", event: event)
            }
            context.reply(Empty())
        } catch {
            if case .wrongPasscode(let failed, _) = error {
                context.logger.warning("unlock failed", event: "unlock_failed", metadata: ["failed_attempts": "\(failed)"])
            }
            if case .unlockInterrupted = error {
                context.logger.notice("unlock interrupted by a lock", event: "unlock_interrupted")
            }
            if case .wiped = error {
                presentations.removeAll()
                unsentOutput?.dropUnsentOutput { _ in true }
                context.logger.critical("wiped after failed attempts", event: "wiped")
                settingsWereWiped()
            }
            fail(context, with: error, method: request.method)
        }
        dropStalePresentations()
        // A passcode set or removed changes what hosts see while locked (class B) and may
        // schedule a class-A purge (set on a locked device): as much a change as a lock.
        if before != store.deviceState || passcodeWasSet != store.passcodeSet
            || store.deviceState == .beforeFirstUnlock && !store.passcodeSet
        {
            deviceStateChanged()
        } else if case .setPasscode = request {
            publishDeviceEvent(.state)
        }
    }

    /// Locks at once, ahead of every Unlock still being derived or queued: those that
    /// arrived before it fail when their turn ends (`UnlockInterrupted`, or
    /// `WrongPasscode` counted as ever), so once this reply is sent the device stays locked.
    func lock(_ call: VarlinkCall, _ context: CallContext) throws {
        lockDevice(logger: context.logger) { context.reply(Empty()) }
    }

    /// The lock path: `Device.Lock`, and the session monitor's locks (routed here by
    /// `DaemonRuntime`). `purgeAtOnce` (before sleep) purges classes A and B now.
    /// `answer` runs between the lock and its announcement, so that a `Lock` call's
    /// reply comes before the monitors and watches hear of it.
    func lockDevice(purgeAtOnce: Bool = false, logger: Logger, answer: () -> Void = {}) {
        store.lock(now: now(), purgeAtOnce: purgeAtOnce)
        logger.info("locked", event: "lock")
        answer()
        deviceStateChanged()
        // Not from a call, whose end would do it: no cached content may outlive the lock.
        dropStalePresentations()
    }

    func wipe(_ call: VarlinkCall, _ context: CallContext) throws {
        let parameters = try call.parameters(WipeParameters.self)
        guard parameters.confirm == "WIPE" else { throw ServiceError.invalidParameter("confirm") }
        presentations.removeAll()
        try store.wipe()
        // Every class is erased: no reply holding content may still reach anyone.
        unsentOutput?.dropUnsentOutput { _ in true }
        context.logger.critical("crypto-erased by request", event: "wiped")
        settingsWereWiped()
        context.reply(Empty())
        deviceStateChanged()
    }

    func setSettings(_ call: VarlinkCall, _ context: CallContext) throws {
        let parameters = try call.parameters(SetSettingsParameters.self)
        var new = settings
        if let access = parameters.lockScreenWidgetsAccess { new.lockScreenWidgetsAccess = access }
        if let hide = parameters.hideSensitiveComplications {
            guard let value = HideSensitiveComplications(rawValue: hide) else {
                throw ServiceError.invalidParameter("hideSensitiveComplications")
            }
            new.hideSensitiveComplications = value
        }
        if let hidden = parameters.hiddenComplications {
            do { new.hiddenComplications = try hidden.map { try WidgetID($0) } } catch {
                throw ServiceError.invalidParameter("hiddenComplications")
            }
        }
        // Saved even if unchanged while unreadable: setting them is what ends the restriction.
        if new != settings || settingsUnreadable {
            try store.saveSettings(Array(try encoder.encode(new)))
            settings = new
            settingsUnreadable = false
            context.logger.info("settings changed", event: "settings_changed")
        }
        context.reply(SettingsReply(settings: settings))
        publishDeviceEvent(.settings)
        refreshWatches(nil)
    }

    func monitor(_ call: VarlinkCall, _ context: CallContext) throws {
        let event = deviceEvent(.state)
        guard context.wantsMore else { return context.reply(DeviceEventReply(event: event)) }
        context.stream(DeviceEventReply(event: event))
        subscriptions.addMonitor(context)
    }

    // MARK: Events

    private func deviceEvent(_ kind: DeviceEvent.Kind) -> DeviceEvent {
        DeviceEvent(kind: kind, state: store.deviceState, passcodeSet: store.passcodeSet, settings: settings)
    }

    func publishDeviceEvent(_ kind: DeviceEvent.Kind) {
        let reply = DeviceEventReply(event: deviceEvent(kind))
        for monitor in subscriptions.monitors where monitor.isOpen { monitor.stream(reply) }
    }

    /// Lock state changed: tell monitors, re-present every watch, reschedule purges.
    func deviceStateChanged() {
        publishDeviceEvent(.state)
        refreshWatches(nil)
        reschedule()
    }
}
