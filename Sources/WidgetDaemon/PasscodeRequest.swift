import FoundationEssentials
import SecureMemory
import StoreKeys
import VarlinkTransport
import WidgetStore
import WidgetdPOSIX
import WidgetdWire

/// An `Unlock` or `SetPasscode` call waiting for its turn in the ``PasscodeQueue``.
///
/// Both run Argon2id off the loop and both count wrong passcodes, so they are strictly
/// one at a time: parallel connections cannot sidestep the delay schedule, and a change
/// never races an unlock. An unlock remembers the store's lock epoch when it arrived: a
/// Lock after that wins over it, even while it still waits for its turn
/// (`StoreError.unlockInterrupted`).
///
/// One type for both: ``begin`` checks on the loop and returns the derivation, which runs
/// off the loop and yields the ``DerivedRequest`` to judge back on it. The passcodes are
/// captured in secure memory and zeroed when the derivation is released.
struct PasscodeRequest {
    /// The call to answer.
    let context: CallContext
    /// The qualified method name, for errors and logs.
    let method: String
    /// The checks against the store, on the loop, when the request's turn comes.
    let begin: () throws(StoreError) -> PasscodeDerivationWork
}

/// The Argon2id work of one request, handed to a background queue with its passcodes.
struct PasscodeDerivationWork: @unchecked Sendable {
    /// Runs the derivations (safe on any thread): the keys to judge, or why there are none.
    let derive: () -> Result<DerivedRequest, StoreError>
}

/// A request's derived keys (in secure memory), to be judged by the store on the loop.
enum DerivedRequest: @unchecked Sendable {
    case unlock(DerivedPasscode)
    case passcodeChange(DerivedPasscodeChange)
}

extension PasscodeRequest {
    /// `Unlock(passcode)`, which arrived at lock epoch `arrived`.
    static func unlock(
        _ context: CallContext, passcode: SecureBytes, arrived: LockEpoch, store: any StoreDeviceFace, now: @escaping () -> ClockReading
    ) -> PasscodeRequest {
        PasscodeRequest(context: context, method: WidgetdMethod.unlock.fullName) { () throws(StoreError) in
            let derivation = try store.beginUnlock(now: now(), lockEpoch: arrived)
            return PasscodeDerivationWork {
                do throws(KeyError) { return .success(.unlock(try derivation.derive(passcode))) } catch { return .failure(StoreError(error)) }
            }
        }
    }

    /// `SetPasscode(current, new)`: set (no current), change, or remove (no new).
    static func setPasscode(
        _ context: CallContext, current: SecureBytes?, new: SecureBytes?, store: any StoreDeviceFace, now: @escaping () -> ClockReading
    ) -> PasscodeRequest {
        PasscodeRequest(context: context, method: WidgetdMethod.setPasscode.fullName) { () throws(StoreError) in
            let change = try store.beginSetPasscode(hasCurrent: current != nil, hasNew: new != nil, now: now())
            return PasscodeDerivationWork {
                do throws(KeyError) { return .success(.passcodeChange(try change.derive(current: current, new: new))) } catch {
                    return .failure(StoreError(error))
                }
            }
        }
    }
}
