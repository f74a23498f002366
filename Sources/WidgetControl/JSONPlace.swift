import StrictJSON
import WidgetModel

/// Where a JSON document goes wrong, as an editor shows it: line and column (both from
/// 1, columns counted in characters), what is wrong, and for a value that is valid JSON
/// but not what a timeline holds, its path (`entries[0].fields["temp"]`).
struct JSONPlace: Error, CustomStringConvertible {
    /// The line, from 1.
    let line: Int
    /// The column, from 1, in characters (not bytes).
    let column: Int
    /// The path and what is wrong; never a value from the document.
    let reason: String
    /// The path to the value at fault (empty for a syntax error).
    let path: [JSONPathComponent]

    /// The place of `error` in `document`.
    init(_ error: JSONReadError, in document: UnsafeRawBufferPointer) {
        var line = 1
        var column = 1
        for byte in document.prefix(error.offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // A UTF-8 continuation byte is part of the character before it.
                column += 1
            }
        }
        self.line = line
        self.column = column
        if error.kind == .mismatch {
            path = JSONReader.path(to: error.offset, in: document)
            reason = InvalidTimeline(reading: error, in: document).reason
        } else {
            path = []
            reason = error.message
        }
    }

    /// `line 3, column 13: reason`.
    var description: String { "line \(line), column \(column): \(reason)" }
}
