/// The widget's class may never be shown on this surface (DESIGN §4, rule 1):
/// classes `complete` and `completeUnlessOpen` are not mirrored to `remote`.
public struct UnavailableOnSurface: Error, Sendable, Hashable, CustomStringConvertible {
    /// The surface that was asked for.
    public let surface: Surface

    /// Makes the error for a surface.
    public init(surface: Surface) {
        self.surface = surface
    }

    /// A sentence for logs and the CLI.
    public var description: String { "the widget is not available on surface \(surface.rawValue)" }
}
