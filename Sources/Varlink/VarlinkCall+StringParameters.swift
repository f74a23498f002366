import StrictJSON

extension VarlinkCall {
    /// The string parameters `names`, in that order, read in one pass over the
    /// parameters' bytes: what a call that takes only strings needs (a host naming a
    /// widget, a surface, an action), without `Decodable`'s decoder, which costs more
    /// than the rest of such a call.
    ///
    /// Answers as ``parameters(_:)`` does for a struct of non-optional `String`s declared
    /// in the same order: other members are ignored; the first of `names` that is
    /// missing, `null` or not a string throws `InvalidParameter` naming it; a member
    /// given twice counts as its first.
    public func stringParameters(_ names: [StaticString]) throws(VarlinkError) -> [String] {
        var values = [String?](repeating: nil, count: names.count)
        var seen = [Bool](repeating: false, count: names.count)
        let read: Result<Void, JSONReadError> = withParameterBytes { bytes in
            Result { () throws(JSONReadError) in
                guard let bytes else { return }
                var reader = JSONReader(validated: bytes)
                try reader.readObject { (reader, key) throws(JSONReadError) in
                    guard let index = names.firstIndex(where: { name in name.withUTF8Buffer { key.utf8.elementsEqual($0) } }) else {
                        return try reader.skipValue()
                    }
                    guard !seen[index], try reader.peek() == .string else {
                        seen[index] = true
                        return try reader.skipValue()
                    }
                    seen[index] = true
                    values[index] = try reader.readString()
                }
            }
        }
        // The bytes were checked as JSON text before any handler runs: a failure here is
        // parameters that are not an object, which `Decodable` names with an empty path.
        if case .failure = read { throw .invalidParameter("") }
        var strings: [String] = []
        strings.reserveCapacity(names.count)
        for (index, value) in values.enumerated() {
            guard let value else { throw .invalidParameter("\(names[index])") }
            strings.append(value)
        }
        return strings
    }
}
