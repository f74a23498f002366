/// The input all of one server's connections may hold buffered together, and how much
/// they hold now: without it each connection's own bound (one message) times the
/// number of connections is what a crowd of peers could make the daemon allocate.
///
/// Each connection's first ``freeBytesPerConnection`` are not counted: every call but a
/// large `PutTimeline` fits in them, so a crowd that fills the budget with unfinished
/// messages cannot keep other clients from being served (only from sending large
/// messages, until the message deadline closes the crowd). The memory is therefore
/// bounded by `limit` plus `MaxConnections` times that allowance.
/// Lives on the event loop's thread.
package final class InputBudget {
    /// What a connection's framer may hold without counting against the budget.
    package static let freeBytesPerConnection = 64 << 10
    /// The most bytes all connections' framers may hold allocated beyond their allowance.
    package let limit: Int
    /// The bytes they hold allocated now.
    package var used = 0

    /// A budget of `limit` bytes, none used yet.
    package init(limit: Int) { self.limit = limit }
}
