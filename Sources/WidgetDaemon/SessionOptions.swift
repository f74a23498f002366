/// `[Session]` in `widgetd.conf`: which logind sessions the daemon follows and which of
/// their changes lock it (DESIGN §8).
struct SessionOptions: Sendable, Equatable {
    /// `LockOnSessionLock=`: a watched session's `Lock` signal, or its `LockedHint`
    /// becoming true, locks.
    var lockOnSessionLock = true
    /// `LockOnSleep=`: `PrepareForSleep(true)` locks and purges classes A and B at once.
    var lockOnSleep = true
    /// `LockOnSessionEnd=`: the end of the last watched session locks.
    var lockOnSessionEnd = true
    /// `Sessions=`: which sessions are watched.
    var sessions: SessionSelection = .auto
    /// `RequirePasscodeAfterSec=`: seconds locked after which class C is purged too and the
    /// state is `beforeFirstUnlock` again (iOS's inactivity restart); `nil` (`0`,
    /// `infinity`) never. Default 72 h.
    var requirePasscodeAfter: Double? = 72 * 3600

    /// The defaults: follow every source.
    init() {}

    /// Whether any logind source is on (`RequirePasscodeAfterSec=` needs no bus); with none the daemon does not connect to the bus at all.
    var followsSessions: Bool { lockOnSessionLock || lockOnSleep || lockOnSessionEnd }
}

/// `Sessions=`: `auto` or a list of logind session ids.
enum SessionSelection: Sendable, Equatable {
    /// A user instance watches every session of its uid; the system instance the active
    /// session of `seat0`.
    case auto
    /// These sessions, while logind has them.
    case ids([String])

    /// Whether `text` can be a logind session id: letters and digits only, as logind
    /// makes them (`3`, `c1`), so that no id can smuggle anything into a match rule.
    static func isValidSessionID(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
