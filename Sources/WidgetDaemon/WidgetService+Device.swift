import Dispatch
import Foundation
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
            failedAttempts: store.failedAttempts, retryAfter: store.retryAfter(now: now), settings: settings)
    }

    func getStatus(_ call: VarlinkCall, _ context: CallContext) throws {
        context.reply(status())
    }

    func setPasscode(_ call: VarlinkCall, _ context: CallContext) throws {
        let parameters = try call.parameters(SetPasscodeParameters.self)
        let current = try parameters.current.map(secureCopy)
        let new = try parameters.new.map(secureCopy)
        if let new, new.count == 0 { throw ServiceError.invalidParameter("new") }
        let wasUnlocked = store.deviceState
        // Runs two KDFs on the loop. Passcode changes are rare and admin-only; unlocks,
        // which any member of UnlockGroup may send, run theirs off the loop.
        try store.setPasscode(current: current, new: new, now: now())
        logger.notice("passcode changed", event: new == nil ? "passcode_removed" : (current == nil ? "passcode_set" : "passcode_changed"), metadata: ["peer.uid": "\(context.peer.uid)",
        ])
        context.reply(Empty())
        if wasUnlocked != store.deviceState { deviceStateChanged() } else { publishDeviceEvent(.state) }
    }

    func unlock(_ call: VarlinkCall, _ context: CallContext) throws {
        let parameters = try call.parameters(UnlockParameters.self)
        pendingUnlocks.append((context, try secureCopy(parameters.passcode)))
        startNextUnlock()
    }

    /// Starts the oldest waiting unlock: the delay check on the loop, the KDF off it,
    /// the verdict back on the loop, where it is recorded durably before the answer.
    func startNextUnlock() {
        guard !unlockInProgress, !pendingUnlocks.isEmpty else { return }
        let (context, passcode) = pendingUnlocks.removeFirst()
        let derivation: PasscodeDerivation
        do {
            derivation = try store.beginUnlock(now: now())
        } catch {
            fail(context, with: error, method: "io.widgetd.Device.Unlock")
            return startNextUnlock()
        }
        unlockInProgress = true
        let work = UnlockWork(derivation: derivation, passcode: passcode)
        let completion = LoopBound((service: self, context: context), loop: loop)
        DispatchQueue.global(qos: .userInitiated).async { [loop] in
            let result = work.derive()
            loop.execute { completion.value.service.finishUnlock(result, context: completion.value.context) }
        }
    }

    private func finishUnlock(_ result: Result<DerivedPasscode, StoreError>, context: CallContext) {
        unlockInProgress = false
        defer { startNextUnlock() }
        let before = store.deviceState
        do {
            try store.finishUnlock(result.get(), now: now())
            logger.notice("unlocked", event: "unlock", metadata: ["peer.uid": "\(context.peer.uid)"])
            context.reply(Empty())
        } catch {
            if case .wrongPasscode(let failed, _) = error {
                logger.warning("unlock failed", event: "unlock_failed", metadata: ["peer.uid": "\(context.peer.uid)", "failed_attempts": "\(failed)",
                ])
            }
            if case .wiped = error {
                presentations.removeAll()
                logger.critical("wiped after failed attempts", event: "wiped", metadata: ["peer.uid": "\(context.peer.uid)"])
            }
            fail(context, with: error, method: "io.widgetd.Device.Unlock")
        }
        dropStalePresentations()
        if before != store.deviceState || store.deviceState == .beforeFirstUnlock && !store.passcodeSet {
            deviceStateChanged()
        }
    }

    func lock(_ call: VarlinkCall, _ context: CallContext) throws {
        store.lock(now: now())
        logger.info("locked", event: "lock", metadata: ["peer.uid": "\(context.peer.uid)"])
        context.reply(Empty())
        deviceStateChanged()
    }

    func wipe(_ call: VarlinkCall, _ context: CallContext) throws {
        let parameters = try call.parameters(WipeParameters.self)
        guard parameters.confirm == "WIPE" else { throw ServiceError.invalidParameter("confirm") }
        presentations.removeAll()
        try store.wipe()
        logger.critical("crypto-erased by request", event: "wiped", metadata: ["peer.uid": "\(context.peer.uid)"])
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
        if new != settings {
            try store.saveSettings(Array(try encoder.encode(new)))
            settings = new
            logger.info("settings changed", event: "settings_changed", metadata: ["peer.uid": "\(context.peer.uid)"])
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

    /// Copies a passcode out of a decoded parameter into secure memory.
    ///
    /// The `String` itself is released right after (and its heap chunk overwritten by
    /// M_PERTURB); only the secure copy is kept.
    func secureCopy(_ text: String) throws -> SecureBytes {
        var text = text
        return try text.withUTF8 { bytes throws in
            do { return try SecureBytes(copying: UnsafeRawBufferPointer(bytes)) } catch {
                throw ServiceError.storageFailure("out of secure memory")
            }
        }
    }
}

/// The Argon2id work of one unlock, handed to a background queue.
///
/// The passcode buffer moves with it and is released (zeroed) on that queue.
private struct UnlockWork: @unchecked Sendable {
    let derivation: PasscodeDerivation
    let passcode: SecureBytes

    func derive() -> Result<DerivedPasscode, StoreError> {
        do { return .success(try derivation.derive(passcode)) } catch { return .failure(error) }
    }
}
