/// Why a benchmark could not run or finish.
public struct BenchError: Error, CustomStringConvertible {
    /// What went wrong, for the operator.
    public let description: String

    /// An error with its explanation.
    public init(_ description: String) { self.description = description }
}
