/// Why a `JSONReader` stopped, and where.
///
/// The error carries the byte offset of the value (or object) it is about, not a path:
/// building paths while reading would cost on every value, so a caller that reports
/// the error finds the path afterwards with `JSONReader.path(to:in:)`. The message
/// never quotes the input's values (they may be private).
public struct JSONReadError: Error, Sendable, Equatable {
    /// What kind of problem this is.
    public enum Kind: Sendable, Equatable {
        /// The bytes are not JSON text: bad grammar, invalid UTF-8, a lone surrogate,
        /// nesting deeper than `JSONReader.maximumDepth`, or something after the value.
        case syntax
        /// Valid JSON that is not what the reader's caller expects here.
        case mismatch
    }

    /// Syntax or mismatch.
    public let kind: Kind
    /// The offset of the value the problem is about (for a syntax error: where it was found).
    public let offset: Int
    /// What is wrong, in words a provider's author can act on.
    public let message: String

    /// Makes an error about the value at `offset`.
    public init(_ kind: Kind, at offset: Int, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    /// A value that is valid JSON but not what is expected at `offset`.
    public static func mismatch(at offset: Int, _ message: String) -> JSONReadError {
        JSONReadError(.mismatch, at: offset, message)
    }
}
