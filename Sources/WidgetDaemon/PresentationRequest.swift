import Glibc
import WidgetModel

/// What a `GetPresentation` call asks for: one widget on one surface.
struct PresentationRequest: Hashable {
    let widget: WidgetID
    let surface: Surface

    /// A received message as a dictionary key, hashed as one block of bytes (an
    /// `[UInt8]` key would be hashed byte by byte, a cost on every read).
    ///
    /// A remembered message owns its bytes; a lookup borrows the received bytes in
    /// place (``borrowing(_:)``), so recognising a repeated request allocates nothing.
    /// A borrowed key must not be stored: it is valid only while its bytes are.
    struct Message: Hashable {
        private enum Storage {
            case owned([UInt8])
            case borrowed(UnsafeRawBufferPointer)
        }

        private let storage: Storage

        /// A key that owns a copy of `bytes`, to be remembered.
        init(_ bytes: [UInt8]) { storage = .owned(bytes) }

        private init(borrowed bytes: UnsafeRawBufferPointer) { storage = .borrowed(bytes) }

        /// A key over `bytes` in place, for a lookup only.
        static func borrowing(_ bytes: UnsafeRawBufferPointer) -> Message { Message(borrowed: bytes) }

        private func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch storage {
            case .owned(let bytes): bytes.withUnsafeBytes(body)
            case .borrowed(let bytes): body(bytes)
            }
        }

        func hash(into hasher: inout Hasher) {
            withBytes { hasher.combine(bytes: $0) }
        }

        static func == (a: Message, b: Message) -> Bool {
            a.withBytes { x in
                b.withBytes { y in
                    x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
                }
            }
        }
    }
}
