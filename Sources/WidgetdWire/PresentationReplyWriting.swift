import StrictJSON
import WidgetModel

extension PresentationReply {
    /// Writes `{"presentation":{…}}`: the bytes `JSONTreeEncoder.bytes` makes of this
    /// reply, without its tree (see `Presentation.write(to:)`). The daemon sends every
    /// presentation this way.
    public func write(to writer: inout JSONWriter) {
        writer.raw(#"{"presentation":"#)
        presentation.write(to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }
}
