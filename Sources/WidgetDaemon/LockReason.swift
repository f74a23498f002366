/// Why the device is locked (DESIGN §8, `lockedBy`): the source of the last lock.
enum LockReason: String, Sendable, CaseIterable, Encodable {
    /// A client's `Device.Lock`.
    case client
    /// The session was locked (logind `Lock`, `LockedHint`).
    case session
    /// The machine is going to sleep (logind `PrepareForSleep`).
    case sleep
    /// The last watched session ended.
    case sessionEnd
    /// Locked for `RequirePasscodeAfterSec=`: before-first-unlock again.
    case inactivity
    /// Nobody unlocked since widgetd started.
    case start
}
