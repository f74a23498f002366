import FoundationEssentials
import StrictJSON
import WidgetModel
import WidgetdWire

extension PutTimelineParameters {
    /// Reads a call's parameters in place with `JSONReader` (see `ProviderParameters`).
    static func read(from bytes: UnsafeRawBufferPointer?) throws -> PutTimelineParameters {
        let members = try ProviderParameters(bytes)
        return PutTimelineParameters(
            widget: try members.widget(),
            family: try members.family(),
            entries: try members.timelinePart("entries", Entry.readArray) ?? { throw ServiceError.invalidTimeline("missing \"entries\"") }(),
            policy: try members.timelinePart("policy", ReloadPolicy.read),
            placeholder: try members.timelinePart("placeholder", Placeholder.read))
    }
}

extension AppendEntriesParameters {
    /// Reads a call's parameters in place with `JSONReader` (see `ProviderParameters`).
    static func read(from bytes: UnsafeRawBufferPointer?) throws -> AppendEntriesParameters {
        let members = try ProviderParameters(bytes)
        return AppendEntriesParameters(
            widget: try members.widget(),
            entries: try members.timelinePart("entries", Entry.readArray) ?? { throw ServiceError.invalidTimeline("missing \"entries\"") }())
    }
}

/// The members of a `PutTimeline` or `AppendEntries` parameters object, located in one
/// pass and then decoded in a fixed order (`widget`, `family`, `entries`, `policy`,
/// `placeholder`), so that the first problem named does not depend on member order.
///
/// `widget` and `family` problems are `InvalidParameter` naming the member; problems in
/// `entries`, `policy` and `placeholder` are `InvalidTimeline` with the path inside
/// them. Unknown members are ignored, as Varlink allows; a known member given twice is
/// refused. The envelope scan has already checked the bytes are JSON text.
struct ProviderParameters {
    static let known = ["widget", "family", "entries", "policy", "placeholder"]

    private let bytes: UnsafeRawBufferPointer
    private var offsets: [String: Int] = [:]

    init(_ bytes: UnsafeRawBufferPointer?) throws {
        guard let bytes else {
            self.bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        self.bytes = bytes
        var reader = JSONReader(bytes)
        var offsets: [String: Int] = [:]
        var duplicate: String?
        do {
            try reader.readObject { (reader, key) throws(JSONReadError) in
                _ = try reader.peek()
                if Self.known.contains(key), offsets.updateValue(reader.offset, forKey: key) != nil, duplicate == nil {
                    duplicate = key
                }
                // The envelope scan checked these bytes: locating the next member is enough.
                try reader.skipCheckedValue()
            }
        } catch {
            throw ServiceError.invalidParameter("")
        }
        if let duplicate {
            if duplicate == "widget" || duplicate == "family" { throw ServiceError.invalidParameter(duplicate) }
            throw ServiceError.invalidTimeline("duplicate key \"\(duplicate)\"")
        }
        self.offsets = offsets
    }

    /// The required `widget` string.
    func widget() throws -> String {
        guard let offset = offsets["widget"] else { throw ServiceError.invalidParameter("widget") }
        var reader = JSONReader(bytes).reader(at: offset)
        guard let text = try? reader.readString() else { throw ServiceError.invalidParameter("widget") }
        return text
    }

    /// The optional `family` string; null counts as absent.
    func family() throws -> String? {
        guard let offset = offsets["family"] else { return nil }
        var reader = JSONReader(bytes).reader(at: offset)
        guard let isNull = try? reader.readNull(), !isNull else { return nil }
        guard let text = try? reader.readString() else { throw ServiceError.invalidParameter("family") }
        return text
    }

    /// A member read with `read`, or nil when absent or null; errors are `InvalidTimeline`.
    func timelinePart<T>(_ key: String, _ read: (inout JSONReader) throws(JSONReadError) -> T) throws -> T? {
        guard let offset = offsets[key] else { return nil }
        var reader = JSONReader(bytes).reader(at: offset)
        do {
            if try reader.readNull() { return nil }
            return try read(&reader)
        } catch {
            throw ServiceError.invalidTimeline(InvalidTimeline(reading: error, in: bytes).reason)
        }
    }
}
