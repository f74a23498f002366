/// One step of the path from a document's root to a value: an object key or an array index.
public enum JSONPathComponent: Sendable, Hashable {
    /// A member of an object.
    case key(String)
    /// An element of an array, counted from 0.
    case index(Int)
}
