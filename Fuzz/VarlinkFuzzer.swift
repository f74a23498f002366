// libFuzzer harness: Varlink framing and call decoding (built by scripts/fuzz).
//
// The first input byte chooses how the rest is cut into reads, so the fuzzer explores
// messages split at every place a socket could split them. Each complete message is
// decoded as a call and its parameters as an arbitrary object, the way the daemon
// would; any crash, trap or leak is a finding.
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
                guard let call = try? VarlinkCall(decoding: message) else { continue }
                _ = try? call.parameters(AnyParameters.self)
            }
        } catch {
            framer.reset()
        }
    }
    return 0
}
