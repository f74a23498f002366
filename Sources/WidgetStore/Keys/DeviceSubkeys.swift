import SecureMemory

/// The device-key subkeys a store uses, derived once when its keys are opened: one
/// per purpose (`DeviceKey.Purpose`), so that no key serves two.
struct DeviceSubkeys {
    let keybagMAC: SecureBytes
    let classWrap: SecureBytes
    let fileName: SecureBytes
    let wrongPasscodeTag: SecureBytes
    let passcodeTangle: SecureBytes
    let settingsMAC: SecureBytes
    let timelineMetadata: SecureBytes
    let journalMAC: SecureBytes
    let ledgerMAC: SecureBytes

    init(_ key: DeviceKey) throws(KeyError) {
        keybagMAC = try key.subkey(.keybagMAC)
        classWrap = try key.subkey(.classWrap)
        fileName = try key.subkey(.fileName)
        wrongPasscodeTag = try key.subkey(.wrongPasscodeTag)
        passcodeTangle = try key.subkey(.passcodeTangle)
        settingsMAC = try key.subkey(.settingsMAC)
        timelineMetadata = try key.subkey(.timelineMetadata)
        journalMAC = try key.subkey(.journalMAC)
        ledgerMAC = try key.subkey(.ledgerMAC)
    }
}
