/// What protected content a reply holds, as the service marks it: opaque to the transport.
///
/// A reply the socket has not taken waits in a connection's ``UnsentOutput``, marked with
/// the tag its call gave it. When the service says which tags may no longer be read (a
/// class was purged; ``VarlinkServer/dropUnsentOutput(where:)``), the connection holding
/// one drops its output and closes. What a tag means is the service's alone; a service
/// meeting a tag it does not know must answer that it is unreadable, the most
/// restrictive answer.
package protocol OutputTag: Sendable {
    /// What the connection's log says about the content when it drops it, e.g. its
    /// class: identifiers only, never content.
    var logMetadata: [String: String] { get }
}
