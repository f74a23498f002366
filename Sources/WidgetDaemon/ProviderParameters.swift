import FoundationEssentials
import StrictJSON
import WidgetModel
import WidgetdWire

extension PutTimelineParameters {
    /// Reads a call's parameters in place with `JSONReader` (see `ProviderParameters`).
    static func read(from bytes: UnsafeRawBufferPointer?) throws(ServiceError) -> PutTimelineParameters {
        let members = try ProviderParameters(bytes)
        let widget = try members.widget()
        let family = try members.family()
        guard let entries = try members.timelinePart(.entries, Entry.readArray) else { throw .invalidTimeline("missing \"entries\"") }
        return PutTimelineParameters(
            widget: widget, family: family, entries: entries,
            policy: try members.timelinePart(.policy, ReloadPolicy.read),
            placeholder: try members.timelinePart(.placeholder, Placeholder.read))
    }
}

extension AppendEntriesParameters {
    /// Reads a call's parameters in place with `JSONReader` (see `ProviderParameters`).
    static func read(from bytes: UnsafeRawBufferPointer?) throws(ServiceError) -> AppendEntriesParameters {
        let members = try ProviderParameters(bytes)
        let widget = try members.widget()
        guard let entries = try members.timelinePart(.entries, Entry.readArray) else { throw .invalidTimeline("missing \"entries\"") }
        return AppendEntriesParameters(widget: widget, entries: entries)
    }
}

/// The members of a `PutTimeline` or `AppendEntries` parameters object, located in one
/// pass and then decoded in a fixed order (`widget`, `family`, `entries`, `policy`,
/// `placeholder`), so that the first problem named does not depend on member order.
///
/// `widget` and `family` problems are `InvalidParameter` naming the member; problems in
/// `entries`, `policy` and `placeholder` are `InvalidTimeline` with the path inside
/// them. Unknown members are ignored, as Varlink allows; a known member given twice is
/// refused. The envelope scan has already checked the bytes are JSON text, so they are
/// read with `JSONReader(validated:)`.
struct ProviderParameters {
    /// The members it reads, in the order they are decoded.
    enum Member: Int {
        case widget, family, entries, policy, placeholder

        /// The keys, by `rawValue`.
        private static let names = ["widget", "family", "entries", "policy", "placeholder"]

        /// The member named `key`, or nil for one that is ignored.
        init?(_ key: String) {
            guard let index = Self.names.firstIndex(of: key) else { return nil }
            self.init(rawValue: index)
        }

        /// The member's key.
        var name: String { Self.names[rawValue] }
    }

    private let bytes: UnsafeRawBufferPointer
    /// Where each member's value starts, by `Member.rawValue` (one slot per member): fixed slots rather than a
    /// dictionary, which cost every write an allocation and five hashed inserts.
    private var offsets = InlineArray<5, Int?>(repeating: nil)

    init(_ bytes: UnsafeRawBufferPointer?) throws(ServiceError) {
        guard let bytes else {
            self.bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        self.bytes = bytes
        var reader = JSONReader(validated: bytes)
        var offsets = InlineArray<5, Int?>(repeating: nil)
        var duplicate: Member?
        do {
            try reader.readObject { (reader, key) throws(JSONReadError) in
                _ = try reader.peek()
                if let member = Member(key) {
                    if offsets[member.rawValue] != nil, duplicate == nil { duplicate = member }
                    offsets[member.rawValue] = reader.offset
                }
                // The envelope scan checked these bytes: locating the next member is enough.
                try reader.skipCheckedValue()
            }
        } catch {
            throw ServiceError.invalidParameter("")
        }
        if let duplicate {
            switch duplicate {
            case .widget, .family: throw ServiceError.invalidParameter(duplicate.name)
            case .entries, .policy, .placeholder: throw ServiceError.invalidTimeline("duplicate key \"\(duplicate.name)\"")
            }
        }
        self.offsets = offsets
    }

    /// The required `widget` string.
    func widget() throws(ServiceError) -> String {
        guard let offset = offsets[Member.widget.rawValue] else { throw ServiceError.invalidParameter("widget") }
        var reader = JSONReader(validated: bytes).reader(at: offset)
        guard let text = try? reader.readString() else { throw ServiceError.invalidParameter("widget") }
        return text
    }

    /// The optional `family` string; null counts as absent.
    func family() throws(ServiceError) -> String? {
        guard let offset = offsets[Member.family.rawValue] else { return nil }
        var reader = JSONReader(validated: bytes).reader(at: offset)
        guard let isNull = try? reader.readNull(), !isNull else { return nil }
        guard let text = try? reader.readString() else { throw ServiceError.invalidParameter("family") }
        return text
    }

    /// A member read with `read`, or nil when absent or null; errors are `InvalidTimeline`.
    func timelinePart<T>(_ member: Member, _ read: (inout JSONReader) throws(JSONReadError) -> T) throws(ServiceError) -> T? {
        guard let offset = offsets[member.rawValue] else { return nil }
        var reader = JSONReader(validated: bytes).reader(at: offset)
        do {
            if try reader.readNull() { return nil }
            return try read(&reader)
        } catch {
            throw ServiceError.invalidTimeline(InvalidTimeline(reading: error, in: bytes).reason)
        }
    }
}
