/// The reply of `org.varlink.service.GetInfo`: who implements this service, and which
/// interfaces it serves.
public struct ServiceInfo: Sendable, Hashable, Codable {
    /// The implementer, e.g. `widgetd`.
    public var vendor: String
    /// The product, e.g. `widgetd`.
    public var product: String
    /// The product's version.
    public var version: String
    /// Where to learn more about the product.
    public var url: String
    /// The names of the served interfaces, `org.varlink.service` included.
    public var interfaces: [String]

    /// Creates a service description.
    public init(vendor: String, product: String, version: String, url: String, interfaces: [String]) {
        self.vendor = vendor
        self.product = product
        self.version = version
        self.url = url
        self.interfaces = interfaces
    }
}

/// The parameters of `org.varlink.service.GetInterfaceDescription`.
public struct InterfaceDescriptionRequest: Sendable, Hashable, Codable {
    /// The interface whose definition is asked for.
    public var interface: String
}

/// The reply of `org.varlink.service.GetInterfaceDescription`.
public struct InterfaceDescriptionReply: Sendable, Hashable, Codable {
    /// The interface definition text.
    public var description: String

    /// Wraps a definition text.
    public init(description: String) { self.description = description }
}
