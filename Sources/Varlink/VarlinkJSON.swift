import FoundationEssentials

/// The one JSON configuration every Varlink message uses.
///
/// Sorted keys make replies byte-for-byte reproducible (tests compare bytes, and a
/// pre-encoded reply can be reused); slashes stay unescaped because RFC 3339 dates and
/// widget ids are full of them. `JSONSerialization` is avoided: it costs several times
/// `JSONEncoder` per message.
enum VarlinkJSON {
    /// Makes a fresh encoder with the shared configuration.
    ///
    /// `JSONEncoder` is a class whose configuration is mutable; the daemon encodes from
    /// one thread, but a fresh instance per call keeps this free of shared mutable state
    /// and costs little next to the encoding itself.
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Makes a fresh decoder with the shared configuration.
    static func makeDecoder() -> JSONDecoder {
        JSONDecoder()
    }
}
