import SecureMemory

/// Where the store's device key comes from, injected into `TimelineStore` as a value:
/// the state-directory file or a systemd credential today (`FileDeviceKeySource`), a
/// TPM-sealed blob tomorrow, each one new type and no edit in the store.
///
/// The store asks for the key at open and again after a wipe, and asks the source to
/// destroy what it keeps when a wipe (or the end of an interrupted one) destroys the
/// keybag. It derives every subkey itself (`DeviceKey.Purpose`): a source only keeps,
/// makes and destroys the 32 bytes.
///
/// Threading: called on the store's thread only.
package protocol DeviceKeySource {
    /// The device key (`DeviceKey.byteCount` bytes in secure memory) and the custody it
    /// is in. `mayCreate` is true when there is no keybag yet: a missing key may then be
    /// made and kept; otherwise a missing key is `KeyError.deviceKey(.missing)`, never
    /// a new key, which would replace the evidence with a key that opens nothing.
    func loadDeviceKey(mayCreate: Bool) throws(KeyError) -> (key: SecureBytes, kind: DeviceKeyKind)

    /// Destroys what this source keeps of the key, as part of a wipe. Tolerates there
    /// being nothing left to destroy (an interrupted wipe is finished again); a key it
    /// cannot destroy (a credential, read-only to the daemon) stays, and the erase
    /// still holds because the class secrets go with the keybag.
    func destroyDeviceKey() throws(KeyError)

    /// What the keybag records, under its MAC, of where this source keeps state outside
    /// the directory (a TPM's NV indices), read after the key is loaded and again after
    /// a wipe. A keybag that records other bytes than the source names now is refused at
    /// open (`rollbackCounter`): the state directory was pointed elsewhere. Empty: nothing.
    var keybagBinding: [UInt8] { get }
}

extension DeviceKeySource {
    /// Nothing outside the directory (the key file, a credential).
    package var keybagBinding: [UInt8] { [] }
}

/// What holds the device key, as `GetStatus.protection.deviceKey` names it (DESIGN §9).
package enum DeviceKeyKind: String, Sendable, Equatable {
    /// `STATE/device.key`, beside the data.
    case file
    /// A systemd credential (`$CREDENTIALS_DIRECTORY/device-key`), perhaps sealed by `systemd-creds`.
    case credential
    /// A blob only this machine's TPM can unseal.
    case tpm2
}
