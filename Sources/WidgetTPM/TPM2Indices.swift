/// Where in the TPM's NV memory widgetd keeps its state: two indices in the owner range
/// (0x0180_0000–0x01BF_FFFF).
///
/// Two daemons sharing one TPM (the system daemon and a per-user one) need different
/// indices, or one's wipe would end the other's blobs and one's increments would make
/// the other's files look rolled back.
public struct TPM2Indices: Sendable, Equatable {
    /// The monotonic counter that anchors the keybag and the catalog.
    public let counter: UInt32
    /// The storage seed: 32 random bytes that make the primary key unique to this
    /// installation; replaced at a wipe, which ends every blob sealed before.
    public let storageSeed: UInt32

    /// Two explicit indices.
    public init(counter: UInt32, storageSeed: UInt32) {
        self.counter = counter
        self.storageSeed = storageSeed
    }

    /// widgetd's defaults ("WD" in the owner range): 0x0180_5744 and 0x0180_5745.
    public static let standard = TPM2Indices(counter: 0x0180_5744, storageSeed: 0x0180_5745)
}
