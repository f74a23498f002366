import StoreKeys
import WidgetModel

/// What both of the daemon's sides read of the store: the device's state, whether a
/// passcode is set, which class keys are held, and the tunables. `StoreDeviceFace` and
/// `StoreTimelinesFace` refine it, so these four are declared once and neither face
/// copies the other's; every member only reads (the device side alone sets
/// `configuration`, through `StoreDeviceFace`).
///
/// `TimelineStore` is the one conformer; the members are its own, documented there.
/// Class-bound: a face is the store itself, one reference, not a copy.
///
/// Threading: the store's thread, as every `TimelineStore` member.
package protocol StoreSharedFace: AnyObject {
    /// `TimelineStore.configuration`: the tunables.
    var configuration: StoreConfiguration { get }
    /// `TimelineStore.deviceState`: locked, unlocked or never unlocked since boot.
    var deviceState: DeviceState { get }
    /// `TimelineStore.passcodeSet`.
    var passcodeSet: Bool { get }
    /// `TimelineStore.isKeyAvailable(_:)`: whether the key of class `c` is held now.
    func isKeyAvailable(_ c: ProtectionClass) -> Bool
}
