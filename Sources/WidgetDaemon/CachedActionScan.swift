import StrictJSON
import WidgetModel

/// Finds one action in a cached `GetPresentation` reply, in place.
///
/// `PerformAction` may run only an action the surface shows now (DESIGN §13), and the
/// cached reply of that widget on that surface *is* what the surface is shown now: it
/// was made by the same rules under the key state and settings in force, and it is
/// dropped when its timeline, a pending action or the time changes it. Reading the
/// action from it spares presenting the widget again (a decrypt, a decode and the
/// rules) on the path from a tap to its provider.
///
/// The scan reads the `actions` array (a presentation's first member) and, of each
/// action, what running it needs (id, kind, toggle state, policy, availability), as
/// bytes where they stand: no title, which may be private, is ever made a `String`; the
/// rest of the reply is skipped. It answers ``Outcome/unknown`` for anything it does not
/// expect (an id written with escapes, another shape), and the caller then presents the
/// widget as before.
enum CachedActionScan {
    enum Outcome: Equatable {
        /// The action as shown, without its title or icon (which running it needs not).
        case shown(PresentedAction)
        /// The presentation shows no action of that id.
        case notShown
        /// The reply could not be read here; present the widget instead.
        case unknown
    }

    /// The action `id` as `reply` (a presentation reply this daemon encoded) shows it.
    static func action(_ id: String, in reply: UnsafeRawBufferPointer) -> Outcome {
        var wanted = id
        return wanted.withUTF8 { wanted in
            var reader = JSONReader(validated: reply)
            var outcome = Outcome.unknown
            do {
                try reader.readObjectInPlace { (reader, key) throws(JSONReadError) in
                    guard matches(key, "parameters") else { return try reader.skipValue() }
                    try reader.readObjectInPlace { (reader, key) throws(JSONReadError) in
                        guard matches(key, "presentation") else { return try reader.skipValue() }
                        outcome = try presentation(&reader, wanted: UnsafeRawBufferPointer(wanted))
                    }
                }
            } catch {
                return .unknown
            }
            return outcome
        }
    }

    /// Reads a presentation object up to its `actions` (written first, when present).
    private static func presentation(
        _ reader: inout JSONReader, wanted: UnsafeRawBufferPointer
    ) throws(JSONReadError) -> Outcome {
        var outcome = Outcome.notShown
        var first = true
        try reader.readObjectInPlace { (reader, key) throws(JSONReadError) in
            defer { first = false }
            guard first, matches(key, "actions") else { return try reader.skipValue() }
            try reader.readArray { (reader, _) throws(JSONReadError) in
                // Once found (or unreadable), the rest is only skipped.
                guard case .notShown = outcome else { return try reader.skipValue() }
                if let action = try readAction(&reader, ifItIs: wanted) { outcome = action }
            }
        }
        return outcome
    }

    /// Reads one action object; the action when its id is `wanted`, `.unknown` when its
    /// id has escapes (which ids never have) or it lacks what running it needs, nil for
    /// another action.
    private static func readAction(
        _ reader: inout JSONReader, ifItIs wanted: UnsafeRawBufferPointer
    ) throws(JSONReadError) -> Outcome? {
        var isWanted: Bool?
        var kind: ActionKind?
        var isOn: Bool?
        var authentication: AuthenticationPolicy?
        var available = false
        var redacted = false
        var requires: String?
        var isReadable = true
        try reader.readObjectInPlace { (reader, key) throws(JSONReadError) in
            if matches(key, "id") {
                guard let id = try reader.readUnescapedString() else { return try reader.skipValue() }
                isWanted = id.elementsEqual(wanted)
            } else if matches(key, "kind") {
                kind = try reader.readUnescapedString().flatMap { ActionKind(rawValue: String(decoding: $0, as: UTF8.self)) }
            } else if matches(key, "authentication") {
                authentication = try reader.readUnescapedString().flatMap {
                    AuthenticationPolicy(rawValue: String(decoding: $0, as: UTF8.self))
                }
            } else if matches(key, "isOn") {
                isOn = try reader.readBool()
            } else if matches(key, "available") {
                available = try reader.readBool()
            } else if matches(key, "redacted") {
                redacted = try reader.readBool()
            } else if matches(key, "requires") {
                // Its one value; anything else is not this daemon's and leaves it unread.
                guard let text = try reader.readUnescapedString() else {
                    isReadable = false
                    return try reader.skipValue()
                }
                if matches(text, "unlock") { requires = PresentedAction.unlock } else { isReadable = false }
            } else {
                try reader.skipValue()
            }
        }
        guard let isWanted else { return .unknown }
        guard isWanted else { return nil }
        guard isReadable, let kind, let authentication else { return .unknown }
        return .shown(
            PresentedAction(
                id: String(decoding: wanted, as: UTF8.self), title: nil, kind: kind, isOn: isOn,
                authentication: authentication, available: available, requires: requires, redacted: redacted))
    }

    private static func matches(_ key: UnsafeRawBufferPointer?, _ name: StaticString) -> Bool {
        guard let key else { return false }
        return key.elementsEqual(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
