/// Why a benchmark could not run or finish.
package struct BenchError: Error, CustomStringConvertible {
    /// What went wrong, for the operator.
    package let description: String

    /// An error with its explanation.
    package init(_ description: String) { self.description = description }
}
