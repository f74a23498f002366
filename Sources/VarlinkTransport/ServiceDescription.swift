import Varlink

/// What a ``VarlinkServer`` answers for its service without asking the handler:
/// `org.varlink.service`'s `GetInfo` and `GetInterfaceDescription`, the interfaces and
/// methods that exist (calls to others get the standard errors), and the error that
/// answers a message over the size limit.
///
/// The replies are encoded once, here, by the service's own encoder (so that they are
/// the bytes its other replies would be), and cost no encoding per call.
package final class ServiceDescription: Sendable {
    /// The interfaces served, by name, `org.varlink.service` included.
    private let interfaces: [String: InterfaceDefinition]
    /// `GetInterfaceDescription`'s reply for each interface, by name, NUL-terminated.
    private let descriptionReplies: [String: [UInt8]]
    /// `GetInfo`'s reply, NUL-terminated.
    let infoReply: [UInt8]
    /// The error name that answers a message over ``ServerLimits/maxMessageBytes``,
    /// with the limit as its `limit` parameter.
    let tooLargeErrorName: String

    /// Describes a service: `info` for `GetInfo`, `interfaces` for
    /// `GetInterfaceDescription` and to tell which calls exist (``InterfaceDefinition/service``
    /// is added when missing), the name of the error for an oversized message (the
    /// service's own, e.g. `io.widgetd.TooLarge`; Varlink defines none), and `encode`,
    /// which makes a NUL-terminated reply carrying the parameters it is given.
    package init(
        info: ServiceInfo, interfaces: [InterfaceDefinition], tooLargeErrorName: String,
        encode: (any Encodable) -> [UInt8]
    ) {
        var byName = [InterfaceDefinition.service.name: InterfaceDefinition.service]
        for definition in interfaces { byName[definition.name] = definition }
        self.interfaces = byName
        descriptionReplies = byName.mapValues { encode(InterfaceDescriptionReply(description: $0.text)) }
        infoReply = encode(info)
        self.tooLargeErrorName = tooLargeErrorName
    }

    /// The definition of the interface called `name`, or `nil` when the service has none.
    func interface(named name: String) -> InterfaceDefinition? { interfaces[name] }

    /// `GetInterfaceDescription`'s reply for the interface called `name`, or `nil`.
    func descriptionReply(for name: String) -> [UInt8]? { descriptionReplies[name] }
}
