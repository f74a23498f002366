/// Who speaks for logind (DESIGN §8): a signal counts only when its sender is the current
/// unique owner of `org.freedesktop.login1` and it is a broadcast (no destination).
///
/// A match rule's `sender='org.freedesktop.login1'` does not say so: the bus daemon
/// applies it only to broadcasts, and delivers a signal addressed to widgetd's unique name
/// from any client (the stock system policy allows every signal), which sd-bus then
/// matches against a well-known sender name without checking who sent it. So the owner is
/// learnt from the bus driver itself (`GetNameOwner`, then `NameOwnerChanged`), whose
/// messages carry the sender `org.freedesktop.DBus`, a name no client can take; and every
/// signal is checked against it here.
///
/// Pure: ``LogindBus`` feeds it what the driver said and asks it about each signal.
struct LogindGate: Sendable, Equatable {
    /// The bus driver's name: the sender of its replies and signals.
    static let busDriver = "org.freedesktop.DBus"

    /// Why a message was not taken as logind's (or as the driver's).
    enum Refusal: String, Sendable, Equatable {
        /// It was addressed to widgetd (a unicast): logind broadcasts.
        case addressed
        /// The driver has not said yet who owns logind's name, or said that nobody does.
        case ownerUnknown
        /// Its sender is not the name's current owner.
        case notTheOwner
        /// A message about the name's owner that did not come from the bus driver.
        case notTheBusDriver
    }

    /// What a `NameOwnerChanged` of logind's name means.
    enum OwnerChange: Sendable, Equatable {
        /// logind (re)appeared: what was known may be stale.
        case started
        /// The name has no owner now: nothing counts until one takes it.
        case gone
        /// Not from the driver, or not a broadcast: nothing changed.
        case refused(Refusal)
    }

    /// logind's unique name (`:1.7`), while the driver says it owns the name.
    private(set) var owner: String?

    init() {}

    /// Whether a signal from `sender` to `destination` speaks for logind: `nil` if it
    /// does, else why not.
    func refusal(sender: String?, destination: String?) -> Refusal? {
        if destination != nil { return .addressed }
        guard let owner else { return .ownerUnknown }
        return sender == owner ? nil : .notTheOwner
    }

    /// The driver's answer to `GetNameOwner(org.freedesktop.login1)`: `owner`, or `nil`
    /// when the name has none. A reply carries a destination (widgetd), so only its
    /// sender is checked.
    mutating func nameOwnerReply(_ owner: String?, sender: String?) -> Refusal? {
        guard sender == Self.busDriver else { return .notTheBusDriver }
        self.owner = owner.flatMap { $0.isEmpty ? nil : $0 }
        return nil
    }

    /// `NameOwnerChanged(org.freedesktop.login1, old, new)`, which the driver broadcasts.
    mutating func nameOwnerChanged(newOwner: String, sender: String?, destination: String?) -> OwnerChange {
        guard sender == Self.busDriver else { return .refused(.notTheBusDriver) }
        guard destination == nil else { return .refused(.addressed) }
        guard !newOwner.isEmpty else {
            owner = nil
            return .gone
        }
        owner = newOwner
        return .started
    }
}
