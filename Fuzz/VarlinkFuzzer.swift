// libFuzzer harness: Varlink framing and call decoding (built by scripts/fuzz).
//
// The first input byte chooses how the rest is cut into reads, so the fuzzer explores
// messages split at every place a socket could split them. Each complete message is
// decoded as a call and its parameters as an arbitrary object, the way the daemon
// would; any crash, trap or leak is a finding. Each message is also decoded the event
// loop's way (the envelope scanned, the parameters checked by a walk or alone): a
// message that one way refuses as not JSON and the other does not, or that is refused
// when it is a JSON object (or accepted when it is not), traps.
import StrictJSON
import Varlink

/// Parameters shaped like the daemon's calls, every field optional.
private struct AnyParameters: Decodable {
    let widget: String?
    let passcode: String?
    let surface: String?
    let entries: [[String: String]]?
    let confirm: String?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVarlink(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let chunk = Int(bytes[0]) + 1
    let framer = MessageFramer(maxMessageBytes: 4096)
    var offset = 1
    while offset < size {
        let end = min(size, offset + chunk)
        framer.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[offset..<end]))
        offset = end
        do {
            while let message = try framer.nextMessage() {
                checkDeferredScan(message)
                guard let call = try? VarlinkCall(decoding: message) else { continue }
                _ = try? call.parameters(AnyParameters.self)
            }
        } catch {
            framer.reset()
        }
    }
    return 0
}

/// The deferred scan, with each kind of walk, refuses what the whole scan refuses.
private func checkDeferredScan(_ message: [UInt8]) {
    // A call is a JSON object; other JSON text (`2`, `[]`) is refused as not one, too.
    let isJSONObject = message.withUnsafeBytes { bytes in
        var reader = JSONReader(bytes)
        return (try? JSONReader.validate(bytes)) != nil && (try? reader.peek()) == .object
    }
    func outcome(_ decode: () throws -> VarlinkCall) -> String {
        do {
            let call = try decode()
            precondition(call.parametersAreChecked)
            return "\(call.method) \(call.more) \(call.oneway) \(call.upgrade)"
        } catch {
            return "\(error)"
        }
    }
    let whole = outcome { try VarlinkCall(decoding: message) }
    precondition((whole == "\(VarlinkCallDecodingError.notAJSONObject)") == !isJSONObject)
    for walk in 0..<3 {
        let deferred = outcome {
            try message.withUnsafeBytes { bytes in
                var call = try VarlinkCall(decodingDeferringParameters: bytes)
                switch walk {
                case 0: try call.checkParameters()
                case 1: try call.readParameters { (reader) throws(JSONReadError) in try reader?.skipValue() }
                default:
                    // Reads string members, refusing (and skipping) anything else, as the
                    // daemon's walk does.
                    try call.readParameters { (reader) throws(JSONReadError) -> Int in
                        var refused = 0
                        try reader?.readObject { (inner, _) throws(JSONReadError) in
                            let start = inner
                            if (try? inner.readString()) == nil {
                                inner = start
                                try inner.skipValue()
                                refused += 1
                            }
                        }
                        return refused
                    }
                }
                return call
            }
        }
        precondition(deferred == whole, "deferred \(deferred), whole \(whole)")
    }
}
