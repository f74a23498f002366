import FoundationEssentials
import StrictJSON

// A presentation's wire JSON, written straight into a `JSONWriter`: the daemon encodes
// one for every widget and surface a change shows, and going through `Encodable` into
// `JSONTreeEncoder`'s tree (a node, a dictionary and a boxed value per member) first
// costs nearly as much as reading and presenting the timeline. These write the same
// bytes as `JSONTreeEncoder.bytes` of the same value: keys sorted, except an entry's
// fields, which keep their order; optional members omitted when absent; dates as
// `RFC3339.format` writes them; numbers as their text. `PresentationJSONWritingTests`
// compares the two on many values: a member added to one of these types and not
// written here fails it.

extension Presentation {
    /// Writes `{"actions"?:[…],"entry":…,"luminanceReduced":…,"mode":…,"reasons":[…],"stale":…,
    /// "surface":…,"validUntil"?:…,"widget":…}`, the bytes of its `Encodable` form.
    public func write(to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        if !actions.isEmpty {
            writer.raw(#""actions":["#)
            for (index, action) in actions.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                action.write(to: &writer)
            }
            writer.raw("],")
        }
        writer.raw(#""entry":"#)
        entry.write(to: &writer)
        writer.raw(luminanceReduced ? #","luminanceReduced":true,"mode":"# : #","luminanceReduced":false,"mode":"#)
        writer.string(mode.rawValue)
        writer.raw(#","reasons":["#)
        for (index, reason) in reasons.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.string(reason.rawValue)
        }
        writer.raw(stale ? #"],"stale":true,"surface":"# : #"],"stale":false,"surface":"#)
        writer.string(surface.rawValue)
        if let validUntil {
            writer.raw(#","validUntil":"#)
            RFC3339.write(validUntil, to: &writer)
        }
        writer.raw(#","widget":"#)
        writer.string(widget.description)
        writer.byte(UInt8(ascii: "}"))
    }
}

extension PresentedEntry {
    /// Writes `{"date"?:…,"fields":{…},"relevance"?:{"duration":…,"score":…}}`.
    func write(to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        if let date {
            writer.raw(#""date":"#)
            RFC3339.write(date, to: &writer)
            writer.byte(UInt8(ascii: ","))
        }
        writer.raw(#""fields":{"#)
        for (index, (name, field)) in fields.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.string(name)
            writer.byte(UInt8(ascii: ":"))
            field.write(to: &writer)
        }
        writer.byte(UInt8(ascii: "}"))
        if let relevance {
            // `JSONNumber(_: Double)`'s text, as the tree holds it: a non-finite score
            // (which validation refuses) traps there as it does here.
            writer.raw(#","relevance":{"duration":"#)
            writer.raw(JSONWriter.text(of: relevance.duration))
            writer.raw(#","score":"#)
            writer.raw(JSONWriter.text(of: relevance.score))
            writer.byte(UInt8(ascii: "}"))
        }
        writer.byte(UInt8(ascii: "}"))
    }
}

extension PresentedField {
    /// Writes `{"privacy"?:…,"range"?:[…],"redacted"?:true,"role"?:…,"style"?:…,"value":…}`.
    func write(to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        switch privacy {
        case nil: break
        case .sensitive?: writer.raw(#""privacy":"sensitive","#)
        case .public?: writer.raw(#""privacy":"public","#)
        }
        if let range {
            writer.raw(#""range":"#)
            range.write(to: &writer)
            writer.byte(UInt8(ascii: ","))
        }
        if redacted { writer.raw(#""redacted":true,"#) }
        if let role {
            writer.raw(#""role":"#)
            writer.string(role.rawValue)
            writer.byte(UInt8(ascii: ","))
        }
        if let style {
            writer.raw(#""style":"#)
            writer.string(style.rawValue)
            writer.byte(UInt8(ascii: ","))
        }
        writer.raw(#""value":"#)
        value.write(to: &writer)
        writer.byte(UInt8(ascii: "}"))
    }
}

extension PresentedAction {
    /// Writes `{"authentication":…,"available":…,"icon"?:…,"id":…,"isOn"?:…,"kind":…,
    /// "redacted"?:true,"requires"?:…,"title":…}`.
    func write(to writer: inout JSONWriter) {
        writer.raw(#"{"authentication":"#)
        writer.string(authentication.rawValue)
        writer.raw(available ? #","available":true"# : #","available":false"#)
        if let icon {
            writer.raw(#","icon":"#)
            writer.string(icon)
        }
        writer.raw(#","id":"#)
        writer.string(id)
        if let isOn { writer.raw(isOn ? #","isOn":true"# : #","isOn":false"#) }
        writer.raw(#","kind":"#)
        writer.string(kind.rawValue)
        if redacted { writer.raw(#","redacted":true"#) }
        if let requires {
            writer.raw(#","requires":"#)
            writer.string(requires)
        }
        writer.raw(#","title":"#)
        if let title { writer.string(title) } else { writer.null() }
        writer.byte(UInt8(ascii: "}"))
    }
}
