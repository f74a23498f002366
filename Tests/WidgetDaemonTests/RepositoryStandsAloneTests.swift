import Foundation
import Testing

/// A clone is all a user or contributor has: no document or source may point at the
/// workspace beside it. Only `scripts/setup` and `.ci/run` may look there, for the
/// offline package mirrors.
@Suite struct RepositoryStandsAloneTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static let allowed: Set<String> = ["scripts/setup", ".ci/run"]

    /// Every file git would see, relative to the root, outside build output.
    private static func files() -> [String] {
        let skipped: Set<String> = [".build", ".git", ".swiftpm", "dist", ".build-release"]
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var found: [String] = []
        while let path = walker.nextObject() as? String {
            if let first = path.split(separator: "/").first, skipped.contains(String(first)) {
                walker.skipDescendants()
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.path + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(path)
            }
        }
        return found
    }

    @Test func noFilePointsOutsideTheRepository() throws {
        let needle = ".." + "/shared"
        var offenders: [String] = []
        for path in Self.files() where !Self.allowed.contains(path) {
            guard let data = FileManager.default.contents(atPath: Self.root.path + "/" + path),
                  let text = String(data: data, encoding: .utf8) else { continue }
            if text.contains(needle) { offenders.append(path) }
        }
        #expect(offenders.isEmpty, "these files point outside the repository: \(offenders)")
    }

    /// What the units, the package and `GetInfo` name as widgetd's documentation must
    /// exist: its manual pages, installed with it, not a web address nobody keeps.
    @Test func noFileNamesAnInventedRepositoryAddress() throws {
        let needle = "github.com/" + "widgetd/widgetd"
        var offenders: [String] = []
        for path in Self.files() {
            guard let data = FileManager.default.contents(atPath: Self.root.path + "/" + path),
                  let text = String(data: data, encoding: .utf8) else { continue }
            if text.contains(needle) { offenders.append(path) }
        }
        #expect(offenders.isEmpty, "these files name an address that does not exist: \(offenders)")
    }
}
