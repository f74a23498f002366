import Foundation
import Glibc
import SecureMemory
import Testing
import WidgetModel
@testable import StoreFiles
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// A private temporary directory holding one store's state, removed afterwards.
/// Sendable for tests that open a store on another thread: it only holds its path.
final class Fixture: @unchecked Sendable {
    let root: String
    var state: String { "\(root)/state" }
    var timelines: String { "\(state)/timelines" }

    init() {
        root = "/tmp/widgetstore-test-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func open(
        _ configuration: StoreConfiguration = .test, credentials: String? = nil, folding: JournalFolding = .atOnce,
        journalCapacity: Int = Fixture.journalCapacity, now: Date = t0
    ) throws -> TimelineStore {
        try TimelineStore(
            stateDirectory: state, credentialsDirectory: credentials, configuration: configuration,
            journalCapacity: journalCapacity, journalFolding: folding, now: now)
    }

    /// Small, so that the tests fold the journal often (and preallocate little).
    static let journalCapacity = 64 << 10

    /// The timeline files (there is one per widget).
    func timelineFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: timelines).filter { $0.hasSuffix(".wtl") }.sorted()
            .map { "\(timelines)/\($0)" }
    }

    /// Every file under the state directory with its inode and contents.
    func snapshot() throws -> [String: (inode: UInt64, bytes: [UInt8])] {
        var result: [String: (inode: UInt64, bytes: [UInt8])] = [:]
        let enumerator = FileManager.default.enumerator(atPath: state)!
        while let name = enumerator.nextObject() as? String {
            let path = "\(state)/\(name)"
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            result[name] = (UInt64(info.st_ino), Array(FileManager.default.contents(atPath: path)!))
        }
        return result
    }
}

extension StoreConfiguration {
    /// Defaults, with the cheapest Argon2id so that the suite stays fast.
    static var test: StoreConfiguration {
        var c = StoreConfiguration()
        c.kdfCost = .minimum
        return c
    }
}

let t0 = Date(timeIntervalSince1970: 1_800_000_000)

func secure(_ text: String) -> SecureBytes {
    try! Array(text.utf8).withUnsafeBytes { try SecureBytes(copying: $0) }
}

func text(_ bytes: SecureBytes) -> String {
    bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
}

func widget(_ id: String) -> WidgetID { try! WidgetID(id) }

let widgetA = widget("com.example.bank/balance")
let widgetB = widget("com.example.mail/inbox")
let widgetC = widget("com.example.weather/forecast#lock-1")
let widgetD = widget("com.example.clock/time")

let classOf: [WidgetID: ProtectionClass] = [
    widgetA: .complete, widgetB: .completeUnlessOpen, widgetC: .completeUntilFirstUserAuthentication, widgetD: .none,
]

/// Writes one timeline per class, with body "body of <id>".
func putOnePerClass(_ store: TimelineStore) throws {
    for (w, c) in classOf {
        try store.putTimeline(w, protectionClass: c, family: "systemSmall", reloadDue: nil, body: secure("body of \(w)"), placeholder: Array("ph \(w)".utf8))
    }
}

/// The reason of the `corrupt` error `body` throws; records an issue otherwise.
func corruption(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> CorruptionReason? {
    do {
        try body()
        Issue.record("expected a corrupt error, got success", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        if case .corrupt(_, let reason) = error { return reason }
        Issue.record("expected a corrupt error, got \(error)", sourceLocation: sourceLocation)
    } catch let error as FileError {
        // The ledger's own calls (the file format, the catalog) throw its error.
        if case .corrupt(_, let reason) = error { return reason }
        Issue.record("expected a corrupt error, got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
