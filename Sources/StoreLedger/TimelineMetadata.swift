import FoundationEssentials
import WidgetModel

/// What the store knows about a timeline in every state (the class-`none` section).
package struct TimelineMetadata: Sendable, Equatable {
    /// The widget.
    package var widget: WidgetID
    /// The class the timeline was written under.
    package var protectionClass: ProtectionClass
    /// The widget family given at write time, e.g. `systemSmall`.
    package var family: String?
    /// Increases by one with every write.
    package var generation: UInt64
    /// When the provider should be asked for a new timeline, if known.
    package var reloadDue: Date?
    /// The placeholder bytes (no private data by contract).
    package var placeholder: [UInt8]?
    /// The keybag generation of the class key the body is sealed to (`Keybag`).
    package var keyGeneration: TimelineFile.KeyGeneration = 0

    /// A metadata value.
    package init(
        widget: WidgetID, protectionClass: ProtectionClass, family: String?, generation: UInt64, reloadDue: Date?,
        placeholder: [UInt8]?
    ) {
        self.widget = widget
        self.protectionClass = protectionClass
        self.family = family
        self.generation = generation
        self.reloadDue = reloadDue
        self.placeholder = placeholder
    }
}

extension TimelineMetadata {
    /// Equal when what a caller sees is: the key generation is how the body is sealed, not what it says.
    package static func == (a: TimelineMetadata, b: TimelineMetadata) -> Bool {
        a.widget == b.widget && a.protectionClass == b.protectionClass && a.family == b.family
            && a.generation == b.generation && a.reloadDue == b.reloadDue && a.placeholder == b.placeholder
    }
}
