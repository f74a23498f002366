import StoreAnchor
import WidgetStore
import WidgetTPM

/// `KeyProtection=tpm2`: the TPM's NV counter (``TPM2Device/incrementCounter()``) as the
/// store's `RollbackCounter`, on the same device as the sealed device key, so that the
/// keybag and the catalog are anchored where no restored backup reaches (DESIGN §9).
///
/// WidgetTPM throws `TPM2Error`, the store's protocol `AnchorError`: the forwarding lives
/// here, where both are visible. A counter never incremented reads 0 (the store sets
/// it up before its first anchor); every TPM failure is `rollbackCounter(reason:)`
/// with the TPM's text (the device and the response code), a start error at open and
/// never a fall back to running unanchored.
///
/// Threading: any thread; the device locks.
struct TPM2StoreRollbackCounter: RollbackCounter {
    let device: TPM2Device

    func read() throws(AnchorError) -> UInt64 {
        do throws(TPM2Error) {
            return try device.readCounter()
        } catch .counterUninitialized {
            return 0
        } catch {
            throw Self.anchorError(error)
        }
    }

    func increment() throws(AnchorError) -> UInt64 {
        do throws(TPM2Error) { return try device.incrementCounter() } catch { throw Self.anchorError(error) }
    }

    private static func anchorError(_ error: TPM2Error) -> AnchorError {
        .rollbackCounter(reason: "TPM2 NV counter: \(error)")
    }
}
