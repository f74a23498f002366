/// `KeyProtection=tpm2` asked for, and the daemon cannot give it: a start error, never a
/// silent start on a software device key (DESIGN §9).
///
/// This build parses the setting, and WidgetTPM holds the TPM's side
/// (`TPM2DeviceKeySource`), but the store does not yet take its device key from an
/// injected source; until it does, every start with `KeyProtection=tpm2` stops here.
struct KeyProtectionUnavailable: Error, CustomStringConvertible {
    /// `TPM2Device=`, for the message.
    let tcti: String

    var description: String {
        "KeyProtection=tpm2 (TPM2Device=\(tcti)) is not available in this build: widgetd does not start on a software device key instead"
    }
}
