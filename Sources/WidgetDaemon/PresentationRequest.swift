import WidgetModel

/// What a `GetPresentation` call asks for: one widget on one surface.
struct PresentationRequest: Hashable {
    let widget: WidgetID
    let surface: Surface

    /// A received message as a dictionary key, hashed as one block of bytes (an
    /// `[UInt8]` key would be hashed byte by byte, a cost on every read).
    struct Message: Hashable {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }

        static func == (a: Message, b: Message) -> Bool { a.bytes == b.bytes }
    }
}
