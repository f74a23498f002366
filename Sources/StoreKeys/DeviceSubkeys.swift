import SecureMemory

/// The device-key subkeys a store uses, derived once when its keys are opened: one
/// per purpose (`DeviceKey.Purpose`), so that no key serves two.
package struct DeviceSubkeys {
    package let keybagMAC: SecureBytes
    package let classWrap: SecureBytes
    package let fileName: SecureBytes
    package let wrongPasscodeTag: SecureBytes
    package let passcodeTangle: SecureBytes
    package let settingsMAC: SecureBytes
    package let timelineMetadata: SecureBytes
    package let journalMAC: SecureBytes
    package let ledgerMAC: SecureBytes

    package init(_ key: DeviceKey) throws(KeyError) {
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
