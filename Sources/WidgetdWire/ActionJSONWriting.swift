import StrictJSON

// The two messages on a tap's way to its provider, written straight into a `JSONWriter`:
// the bytes `JSONTreeEncoder.bytes` makes of them (keys sorted, an absent optional
// omitted), without building its tree, which costs more than the rest of the way.
// `ExactActionReplyTests` holds the two paths equal.

extension ActionDelivery {
    /// Writes `{"action":…,"id":…,"isOn"?:…,"surface":…,"whileLocked":…,"widget":…}`.
    public func write(to writer: inout JSONWriter) {
        writer.raw(#"{"action":"#)
        writer.string(action)
        writer.raw(#","id":"#)
        writer.raw(String(id))
        if let isOn { writer.raw(isOn ? #","isOn":true"# : #","isOn":false"#) }
        writer.raw(#","surface":"#)
        writer.string(surface)
        writer.raw(whileLocked ? #","whileLocked":true,"widget":"# : #","whileLocked":false,"widget":"#)
        writer.string(widget)
        writer.byte(UInt8(ascii: "}"))
    }
}

extension PerformActionReply {
    /// Writes `{"outcome":…}`.
    public func write(to writer: inout JSONWriter) {
        writer.raw(#"{"outcome":"#)
        writer.string(outcome.rawValue)
        writer.byte(UInt8(ascii: "}"))
    }
}
