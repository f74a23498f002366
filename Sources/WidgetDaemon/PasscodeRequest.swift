import WidgetCrypto
import WidgetStore

/// An `Unlock` or `SetPasscode` call waiting for its turn. Both run Argon2id off the
/// loop and both count wrong passcodes, so they are strictly one at a time: parallel
/// connections cannot sidestep the delay schedule, and a change never races an unlock.
/// An unlock remembers the store's lock epoch when it arrived: a Lock after that wins
/// over it, even while it still waits for its turn (`StoreError.unlockInterrupted`).
///
/// The passcodes are in secure memory and are zeroed when the request is released.
enum PasscodeRequest {
    case unlock(CallContext, passcode: SecureBytes, arrived: LockEpoch)
    case setPasscode(CallContext, current: SecureBytes?, new: SecureBytes?)

    /// The call to answer.
    var context: CallContext {
        switch self {
        case .unlock(let context, _, _), .setPasscode(let context, _, _): context
        }
    }

    /// The qualified method name, for errors and logs.
    var method: String {
        switch self {
        case .unlock: "io.widgetd.Device.Unlock"
        case .setPasscode: "io.widgetd.Device.SetPasscode"
        }
    }
}

/// The Argon2id work of one request, handed to a background queue with its
/// passcodes, which are released (zeroed) on that queue.
enum PasscodeWork: @unchecked Sendable {
    case unlock(PasscodeDerivation, passcode: SecureBytes)
    case setPasscode(PasscodeChange, current: SecureBytes?, new: SecureBytes?)

    /// What the derivation gave, to finish on the loop.
    enum Outcome: @unchecked Sendable {
        case unlock(Result<DerivedPasscode, StoreError>)
        case setPasscode(Result<DerivedPasscodeChange, StoreError>)
    }

    /// Runs the derivations. Safe on any thread.
    func derive() -> Outcome {
        switch self {
        case .unlock(let derivation, let passcode):
            do { return .unlock(.success(try derivation.derive(passcode))) } catch { return .unlock(.failure(error)) }
        case .setPasscode(let change, let current, let new):
            do { return .setPasscode(.success(try change.derive(current: current, new: new))) } catch {
                return .setPasscode(.failure(error))
            }
        }
    }
}
