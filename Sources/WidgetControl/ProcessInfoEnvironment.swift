import FoundationEssentials

/// The process environment, read in one place.
enum ProcessInfoEnvironment {
    /// The current environment variables.
    static var current: [String: String] { ProcessInfo.processInfo.environment }
}
