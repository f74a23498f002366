// libFuzzer harness: the timeline file parser (`TimelineFile.parse`), the first code
// that reads a file an attacker with access to the state directory may have written.
// It is internal to WidgetStore; scripts/fuzz builds the module with -enable-testing.
@testable import WidgetStore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimelineFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? TimelineFile.parse(bytes, expected: nil, file: "fuzz.wtl")
    return 0
}
