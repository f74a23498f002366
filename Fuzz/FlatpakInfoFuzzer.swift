// libFuzzer harness: the reader of a sandbox's /.flatpak-info, whose bytes a sandboxed
// app's packager (or, outside Flatpak, anyone who builds a sandbox) chooses. It must
// never crash, and an id it returns must be a valid Flatpak application id.
import WidgetdPOSIX

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlatpakInfo(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let id = FlatpakInfo.applicationID(in: bytes) {
        precondition(FlatpakInfo.isValidApplicationID(id), "an invalid id was returned: \(id)")
    }
    return 0
}
