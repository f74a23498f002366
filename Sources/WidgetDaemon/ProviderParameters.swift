import FoundationEssentials
import SecureMemory
import StrictJSON
import Varlink
import WidgetModel
import WidgetdWire

extension PutTimelineParameters {
    /// The call's parameters, as walked when the message was framed
    /// (`ProviderParameters.read(of:)`) or, for a call decoded otherwise, walked now.
    static func read(from call: VarlinkCall) throws(ServiceError) -> PutTimelineParameters {
        try read(try ProviderParameters.walked(call, .putTimeline))
    }

    /// The parameters of walked `members` whose entries were not transcribed.
    static func read(_ members: ProviderParameters) throws(ServiceError) -> PutTimelineParameters {
        let widget = try members.widget()
        let family = try members.family()
        guard let entries = try members.timelinePart(\.entries) else { throw .invalidTimeline("missing \"entries\"") }
        return PutTimelineParameters(
            widget: widget, family: family, entries: entries,
            policy: try members.timelinePart(\.policy),
            placeholder: try members.timelinePart(\.placeholder))
    }
}

extension AppendEntriesParameters {
    /// The call's parameters, as `PutTimelineParameters.read(from:)` has them.
    static func read(from call: VarlinkCall) throws(ServiceError) -> AppendEntriesParameters {
        let members = try ProviderParameters.walked(call, .appendEntries)
        let widget = try members.widget()
        guard let entries = try members.timelinePart(\.entries) else { throw .invalidTimeline("missing \"entries\"") }
        return AppendEntriesParameters(widget: widget, entries: entries)
    }
}

/// The members of a `PutTimeline` or `AppendEntries` parameters object, read in one
/// walk that also checks the bytes as JSON text (`VarlinkCall.readParameters`), then
/// judged in a fixed order (`widget`, `family`, `entries`, `policy`, `placeholder`), so
/// that the first problem named does not depend on member order.
///
/// `widget` and `family` problems are `InvalidParameter` naming the member; problems in
/// `entries`, `policy` and `placeholder` are `InvalidTimeline` with the path inside
/// them. Unknown members are ignored, as Varlink allows; a known member given twice is
/// refused. A value the walk refuses is skipped again by the checking reader, so the
/// rest of the message is still checked: only bytes that are not JSON text end the walk
/// (and the connection).
struct ProviderParameters: Sendable {
    /// The members it reads, in the order they are judged.
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

    /// The methods whose parameters these are: `AppendEntries` decodes neither
    /// `family`, `policy` nor `placeholder` (it only refuses them twice).
    enum Method: Sendable {
        case putTimeline, appendEntries
    }

    /// A member as the walk found it.
    enum Value<T: Sendable>: Sendable {
        case null
        case read(T)
        /// Not what the member must be: for a timeline part, the reason with its path.
        case refused(String)
    }

    /// A `PutTimeline`'s entries and policy written straight into the canonical body
    /// (`CanonicalEntries`), when the walk had a scratch and the entries were the usual
    /// kind; `entries` is then nil.
    struct Transcript: Sendable {
        /// The body, exactly sized in secure memory; nil when the policy was refused (its
        /// error is thrown first), an error when secure memory refused the copy.
        let body: Result<SecureBytes, ServiceError>?
        /// The last entry's date, for the reload due (nil: no entries).
        let lastDate: Date?
    }

    /// Secure memory for a transcript, and the limits its entries must keep.
    struct Scratch {
        let buffer: UnsafeMutableRawBufferPointer
        let limits: TimelineLimits

        /// Room kept after the entries for `],"policy":{…}}`.
        static let policyBytes = 128
    }

    private var duplicate: Member?
    private var widgetValue: Value<String>?
    private var familyValue: Value<String>?
    fileprivate(set) var entries: Value<[Entry]>?
    fileprivate(set) var policy: Value<ReloadPolicy>?
    fileprivate(set) var placeholder: Value<Placeholder>?
    private(set) var transcript: Transcript?

    /// Walks the parameters for `call`'s method, if it is one of these; the walk checks
    /// them as JSON text at once (see `VarlinkCallHandler.readParameters(of:)`).
    /// With `bodies`, a `PutTimeline`'s entries are transcribed into its scratch
    /// (`transcript`) when they are the usual kind, under `limits`.
    static func read(
        of call: inout VarlinkCall, transcribingWith bodies: CanonicalBodyEncoder? = nil, limits: TimelineLimits = .default
    ) throws(VarlinkCallDecodingError) -> Bool {
        let method: Method
        switch call.method {
        case WidgetdMethod.putTimeline.fullName: method = .putTimeline
        case WidgetdMethod.appendEntries.fullName: method = .appendEntries
        default: return false
        }
        try call.readParameters { (reader) throws(JSONReadError) in
            try walk(&reader, for: method, transcribingWith: bodies, limits: limits)
        }
        return true
    }

    /// The members of `call`'s parameters: walked when it was framed, or walked now.
    static func walked(
        _ call: VarlinkCall, _ method: Method, transcribingWith bodies: CanonicalBodyEncoder? = nil,
        limits: TimelineLimits = .default
    ) throws(ServiceError) -> ProviderParameters {
        if let walked = call.walkedParameters(as: ProviderParameters.self) { return walked }
        return try call.withParameterBytes { (bytes) throws(ServiceError) in
            var reader = bytes.map { JSONReader(validated: $0) }
            do {
                return try walk(&reader, for: method, transcribingWith: bodies, limits: limits)
            } catch {
                throw ServiceError.invalidParameter("")
            }
        }
    }

    /// The walk, lent `bodies`' scratch for a `PutTimeline` when there is one.
    private static func walk(
        _ reader: inout JSONReader?, for method: Method, transcribingWith bodies: CanonicalBodyEncoder?, limits: TimelineLimits
    ) throws(JSONReadError) -> ProviderParameters {
        guard method == .putTimeline, let bodies else { return try ProviderParameters(walking: &reader, for: method) }
        return try bodies.withScratch { (buffer) throws(JSONReadError) in
            try ProviderParameters(
                walking: &reader, for: method, transcribing: buffer.map { Scratch(buffer: $0, limits: limits) })
        }
    }

    /// Reads the members with `reader` (nil: no parameters), which it leaves past the
    /// object. Throws only a syntax error: the bytes are not JSON text.
    /// With `scratch`, the entries of a `PutTimeline` are first transcribed into it,
    /// and read as `Entry` values only when they are not the usual kind; the scratch
    /// is zeroed again before this returns.
    init(walking reader: inout JSONReader?, for method: Method, transcribing scratch: Scratch? = nil) throws(JSONReadError) {
        guard var walker = reader else { return }
        var members = self
        // The transcript so far, and how much of the scratch it (or an attempt) wrote.
        var transcribed: (writer: JSONWriter, lastDate: Date?)?
        var scratchUsed = 0
        defer { if let scratch { SecretWipe.zero(scratch.buffer.baseAddress, count: scratchUsed) } }
        /// The entries written into the scratch, or false (the reader unmoved) when
        /// they are not the usual kind or do not fit.
        func transcribe(_ reader: inout JSONReader) -> Bool {
            guard let scratch, transcribed == nil else { return false }
            var writer = JSONWriter(into: scratch.buffer)
            var attempt = reader
            defer { scratchUsed = max(scratchUsed, min(writer.count, scratch.buffer.count)) }
            do {
                let lastDate = try CanonicalEntries.transcribe(from: &attempt, limits: scratch.limits, to: &writer)
                guard writer.count <= scratch.buffer.count - Scratch.policyBytes else { return false }
                transcribed = (writer, lastDate)
                reader = attempt
                return true
            } catch {
                return false
            }
        }
        // Timeline parts refused, with where: their reasons are written once the whole
        // object is known to be JSON (a path is found by walking it again).
        var refusals: [(Member, JSONReadError)] = []
        /// Reads one value with `read`; a value `read` refuses is skipped with the
        /// checking reader, so that a syntax error in it still ends the walk.
        func value<T>(_ reader: inout JSONReader, _ member: Member, _ read: (inout JSONReader) throws(JSONReadError) -> T)
            throws(JSONReadError) -> Value<T>
        {
            let start = reader
            do {
                if try reader.readNull() { return .null }
                return .read(try read(&reader))
            } catch {
                reader = start
                try reader.skipValue()
                refusals.append((member, error))
                return .refused("")
            }
        }
        try walker.readObject { (reader, key) throws(JSONReadError) in
            guard let member = Member(key) else { return try reader.skipValue() }
            _ = try reader.peek()
            let seen: Bool
            switch member {
            case .widget: seen = members.widgetValue != nil
            case .family: seen = members.familyValue != nil
            case .entries: seen = members.entries != nil || transcribed != nil
            case .policy: seen = members.policy != nil
            case .placeholder: seen = members.placeholder != nil
            }
            // A member given twice is refused whatever its values: the second is only checked.
            if seen {
                if members.duplicate == nil { members.duplicate = member }
                return try reader.skipValue()
            }
            switch (member, method) {
            case (.widget, _): members.widgetValue = try value(&reader, member) { (reader) throws(JSONReadError) in try reader.readString() }
            case (.entries, _):
                guard !transcribe(&reader) else { return }
                members.entries = try value(&reader, member, Entry.readArray)
            case (.family, .putTimeline):
                members.familyValue = try value(&reader, member) { (reader) throws(JSONReadError) in try reader.readString() }
            case (.policy, .putTimeline): members.policy = try value(&reader, member, ReloadPolicy.read)
            case (.placeholder, .putTimeline): members.placeholder = try value(&reader, member, Placeholder.read)
            // Not read by this method: present, so that a second one is refused.
            case (.family, .appendEntries): try reader.skipValue(); members.familyValue = .null
            case (.policy, .appendEntries): try reader.skipValue(); members.policy = .null
            case (.placeholder, .appendEntries): try reader.skipValue(); members.placeholder = .null
            }
        }
        for (member, error) in refusals {
            func reason() -> String { InvalidTimeline(reading: error, in: walker.bytes).reason }
            switch member {
            case .widget, .family: break
            case .entries: members.entries = .refused(reason())
            case .policy: members.policy = .refused(reason())
            case .placeholder: members.placeholder = .refused(reason())
            }
        }
        if let (written, lastDate) = transcribed, let scratch {
            var writer = written
            switch members.policy {
            case .refused: members.transcript = Transcript(body: nil, lastDate: lastDate)
            case nil, .null, .read:
                var policy = ReloadPolicy.atEnd
                if case .read(let read) = members.policy { policy = read }
                CanonicalEntries.finish(policy: policy, to: &writer)
                scratchUsed = max(scratchUsed, min(writer.count, scratch.buffer.count))
                precondition(writer.fits, "room for the policy was kept")
                let written = UnsafeRawBufferPointer(rebasing: scratch.buffer[0..<writer.count])
                let body = Result { () throws(SecureMemoryError) in try SecureBytes(copying: written) }
                    .mapError { ServiceError.unexpected(ErrorType(of: $0)) }
                members.transcript = Transcript(body: body, lastDate: lastDate)
            }
        }
        reader = walker
        self = members
    }

    /// The required `widget` string; a duplicate member is judged first.
    func widget() throws(ServiceError) -> String {
        if let duplicate {
            switch duplicate {
            case .widget, .family: throw ServiceError.invalidParameter(duplicate.name)
            case .entries, .policy, .placeholder: throw ServiceError.invalidTimeline("duplicate key \"\(duplicate.name)\"")
            }
        }
        guard case .read(let text) = widgetValue else { throw ServiceError.invalidParameter("widget") }
        return text
    }

    /// The optional `family` string; null counts as absent.
    func family() throws(ServiceError) -> String? {
        switch familyValue {
        case nil, .null: return nil
        case .read(let text): return text
        case .refused: throw ServiceError.invalidParameter("family")
        }
    }

    /// A timeline part, or nil when absent or null; a refused one is `InvalidTimeline`.
    func timelinePart<T>(_ member: KeyPath<ProviderParameters, Value<T>?>) throws(ServiceError) -> T? {
        switch self[keyPath: member] {
        case nil, .null: return nil
        case .read(let value): return value
        case .refused(let reason): throw ServiceError.invalidTimeline(reason)
        }
    }
}
