import FoundationEssentials

extension ProviderRegistration {
    /// Whether `name` may be a `Unit=`: a service unit's name as systemd spells one
    /// (letters, digits, `:`, `_`, `.`, `-`, `@`, `\`), ending in `.service`, at most 255
    /// bytes. Nothing that could name a path or another kind of unit.
    static func isValidServiceUnit(_ name: String) -> Bool {
        let suffix = ".service"
        guard name.utf8.count <= 255, name.hasSuffix(suffix), name.utf8.count > suffix.utf8.count else { return false }
        return name.utf8.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
                || [UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "@"), UInt8(ascii: "\\")]
                    .contains(byte)
        }
    }
}

/// Starts a provider's `Unit=` (DESIGN §14): what a per-user widgetd asks of the user's
/// systemd manager when an action or a due reload finds none of the provider's
/// connections watching, as iOS launches a widget extension.
///
/// The start is asked for and not waited on: the provider, once running, connects and
/// watches, and what waited for it (a held action) is delivered then. Loop only.
protocol UnitStarter: AnyObject {
    /// Asks for `unit` to be started; failures are the starter's to log.
    func start(_ unit: String)
}
