import StrictJSON

/// A reply's parameters that write their own JSON straight into a `JSONWriter`: the
/// bytes `JSONTreeEncoder.bytes` makes of the same value, without its tree. The daemon
/// sends these on its hot paths (a presentation, an action on its way to a provider);
/// a test for each type holds the two paths equal.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension PresentationReply: JSONWritable {}
extension ActionDelivery: JSONWritable {}
extension PerformActionReply: JSONWritable {}
