import Varlink

/// The three interfaces widgetd serves beside `org.varlink.service`.
public enum WidgetdInterface: String, Sendable, Hashable, CaseIterable {
    /// `io.widgetd.Device`: lock state, passcode and settings.
    case device = "io.widgetd.Device"
    /// `io.widgetd.Provider`: widget extensions write and read their timelines.
    case provider = "io.widgetd.Provider"
    /// `io.widgetd.Host`: what each surface may show.
    case host = "io.widgetd.Host"

    /// The interface's full name, e.g. `io.widgetd.Device`.
    public var name: String { rawValue }

    /// The interface definition the daemon serves for it.
    public var definition: InterfaceDefinition {
        switch self {
        case .device: .device
        case .provider: .provider
        case .host: .host
        }
    }
}

extension InterfaceDefinition {
    /// Every interface widgetd serves, `org.varlink.service` first.
    public static let all: [InterfaceDefinition] = [service] + WidgetdInterface.allCases.map(\.definition)

    /// The definition for an interface name, or `nil` when the service has none.
    public static func named(_ name: String) -> InterfaceDefinition? {
        all.first { $0.name == name }
    }
}

extension ServiceInfo {
    /// The version widgetd reports.
    public static let widgetdVersion = "0.1.0"

    /// Where widgetd is documented: its manual page, which every installation carries.
    public static let widgetdURL = "man:widgetd(8)"

    /// widgetd's description, listing every embedded interface definition.
    public static let widgetd = ServiceInfo(
        vendor: "widgetd", product: "widgetd", version: widgetdVersion,
        url: widgetdURL,
        interfaces: InterfaceDefinition.all.map(\.name))
}
