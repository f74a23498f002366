import FoundationEssentials

/// A Varlink error reply: a fully qualified error name and its parameters.
///
/// The parameters are kept as an encoded JSON object so that an error can be built
/// from any `Encodable` value and sent without encoding it again. Error parameters go
/// to the client verbatim: never put a secret (a passcode, key material, timeline
/// content) in them.
public struct VarlinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The fully qualified error name, e.g. `org.varlink.service.MethodNotFound`.
    public let name: String
    /// The error's parameters as an encoded JSON object (`{}` when it has none).
    public let encodedParameters: [UInt8]

    /// An error without parameters.
    public init(name: String) {
        self.name = name
        self.encodedParameters = Array("{}".utf8)
    }

    /// An error whose parameters are the encoding of `parameters`.
    ///
    /// The wire types encode infallibly; a value that cannot be encoded (say, a
    /// non-finite float) is a programming error and traps rather than sending an error
    /// that lies about its parameters.
    public init(name: String, parameters: some Encodable) {
        self.name = name
        do {
            self.encodedParameters = Array(try VarlinkJSON.makeEncoder().encode(parameters))
        } catch {
            preconditionFailure("parameters of \(name) cannot be encoded as JSON")
        }
    }

    /// The name and parameters, for logs (error parameters are never secret).
    public var description: String {
        "\(name)\(String(decoding: encodedParameters, as: UTF8.self))"
    }
}

extension VarlinkError {
    /// The interface named by a call is not served here.
    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.InterfaceNotFound", parameters: ["interface": interface])
    }

    /// The interface exists but declares no such method.
    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.MethodNotFound", parameters: ["method": method])
    }

    /// The interface declares the method but this service does not implement it.
    public static func methodNotImplemented(_ method: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.MethodNotImplemented", parameters: ["method": method])
    }

    /// A parameter is missing, has the wrong type or an invalid value.
    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.InvalidParameter", parameters: ["parameter": parameter])
    }

    /// The caller may not call this method (the generic Varlink error).
    public static let permissionDenied = VarlinkError(name: "org.varlink.service.PermissionDenied")

    /// The method streams its replies and must be called with `more`.
    public static let expectedMore = VarlinkError(name: "org.varlink.service.ExpectedMore")
}
