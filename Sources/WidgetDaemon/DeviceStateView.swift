import WidgetModel
import WidgetdPOSIX

/// The device side as the timeline side sees it: the key state and settings every
/// presentation depends on, the key changes due before it presents, and the one-time
/// report that secure memory is not locked. ``DeviceController`` is the one conformer.
///
/// It names nothing of the store: the device's face of the store (passcodes, keys,
/// wipe) stays the device side's, so `TimelineService` cannot reach it through its
/// `device`. Changes come the other way, through ``DeviceChangeFollower``.
protocol DeviceStateView: AnyObject {
    /// The key state and settings a presentation is made under (``PresentationCache/Stamp``).
    var presentationStamp: PresentationCache.Stamp { get }
    /// The settings that decide redaction ("Hide Sensitive Complications").
    var settings: Settings { get }
    /// Runs the key changes due at `clocks` (``DeviceController/applyDueKeyChanges(at:)``).
    func applyDueKeyChanges(at clocks: ClockReading)
    /// Logs, once, that secure memory could not be locked.
    func reportMemoryNotLocked()
}
