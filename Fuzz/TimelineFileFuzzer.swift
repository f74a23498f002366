// libFuzzer harness: the parsers of what an attacker with access to the state directory
// may have written — a timeline file (`TimelineFile.parse`) and the write-ahead journal
// (`Journal.parse`: its header and length arithmetic run before any MAC check). Both are
// StoreLedger's, shared within the package (scripts/fuzz passes -package-name).
import SecureMemory
import StoreLedger

private let journalKey = try! [UInt8](repeating: 7, count: 32).withUnsafeBytes { try SecureBytes(copying: $0) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimelineFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? TimelineFile.parse(bytes, expected: nil, file: "fuzz.wtl")
    _ = try? Journal.parse(bytes[...], macKey: journalKey)
    return 0
}
