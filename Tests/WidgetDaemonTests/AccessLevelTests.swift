import Foundation
import Testing

/// Only the client library is public (`WidgetdClient`, `WidgetdKit`, and the modules its
/// API is written in); the daemon's own modules share their declarations within the
/// package (`package`), so a type meant for the daemon cannot become another program's
/// API by accident.
@Suite struct AccessLevelTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The modules outside the client library's API.
    static let packageOnly = [
        "SecureMemory", "WidgetCrypto", "WidgetTPM", "WidgetdPOSIX", "VarlinkTransport",
        "StoreAnchor", "StoreFiles", "StoreLedger", "StoreKeys", "WidgetStore",
        "WidgetDaemon", "WidgetControl", "WidgetdCommand", "Benchmarks",
    ]

    @Test(arguments: packageOnly)
    func aModuleOutsideTheClientLibraryDeclaresNothingPublic(_ module: String) throws {
        let directory = Self.root.appendingPathComponent("Sources/\(module)")
        let walker = try #require(FileManager.default.enumerator(atPath: directory.path))
        let declaration = try Regex(#"^\s*(@\w+(\([^)]*\))?\s+)*(public\s|open\s+(class|func|var|subscript|static)\b)"#)
        var found: [String] = []
        while let path = walker.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(declaration) {
                found.append("\(module)/\(path):\(number + 1)")
            }
        }
        #expect(found.isEmpty, "public declarations (use package): \(found)")
    }
}
