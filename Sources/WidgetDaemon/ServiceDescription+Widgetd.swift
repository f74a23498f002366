import Varlink
import VarlinkTransport
import WidgetdWire

extension ServiceDescription {
    /// What widgetd's server answers itself: `GetInfo` (``ServiceInfo/widgetd``), the
    /// io.widgetd interface definitions, and `io.widgetd.TooLarge` for an oversized
    /// message; encoded as every reply of the service is (``ExactReply``).
    static let widgetd = ServiceDescription(
        info: .widgetd, interfaces: InterfaceDefinition.all, tooLargeErrorName: WidgetdErrorName.tooLarge.rawValue,
        encode: { ExactReply.encode(parameters: $0) })
}
