/// An error logged by its type alone: the description of an error nobody expected
/// could quote its input (a timeline's content, a passcode's bytes), its type cannot.
struct ErrorType: Error, Equatable, CustomStringConvertible {
    /// The type's name, e.g. `DecodingError`.
    let description: String

    /// The type of `error`, without its values.
    init(of error: any Error) { description = "\(type(of: error))" }
}
