// libFuzzer harness: the configuration parser, fed each input as a main file and as a
// provider file (drop-ins share the main file's grammar).
import WidgetDaemon

/// Resolves a few fixed names, so `User=`/`Group=` by name are exercised too.
private struct FixedAccounts: AccountResolver {
    func userID(named name: String) -> UInt32? { name == "root" ? 0 : name == "nobody" ? 65534 : nil }
    func groupID(named name: String) -> UInt32? { name == "root" ? 0 : name == "nogroup" ? 65534 : nil }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let source = ConfigurationSource(path: "fuzz.conf", text: text)
    let parser = ConfigurationParser(resolver: FixedAccounts())
    _ = try? parser.parse(main: source)
    _ = try? parser.parse(main: nil, providers: [source])
    return 0
}
