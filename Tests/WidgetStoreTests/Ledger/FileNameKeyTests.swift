import SecureMemory
import Testing
import WidgetCrypto
import WidgetModel
@testable import StoreLedger
@testable import WidgetStore

/// A widget's file name is the keyed hash of its full id, however the id's bytes are laid out.
@Suite struct FileNameKeyTests {
    @Test(arguments: ["com.example.weather/forecast", "a/b#lock-1", "p/k#x", String(repeating: "p", count: 120) + "/" + String(repeating: "k", count: 120) + "#i"])
    func theIndexKeyIsTheKeyedHashOfTheID(_ text: String) throws {
        let widget = try WidgetID(text)
        #expect(SealedFileReader.withIDBytes(widget) { Array($0) } == Array(text.utf8))
        let key = try SecureBytes.random(count: 32)
        var expected = [UInt8](repeating: 0, count: 16)
        try expected.withUnsafeMutableBytes { out in try KeyedHash.publicHash(Array(text.utf8), key: key, into: out) }
        #expect(try SealedFileReader.indexKey(for: widget, fileNameKey: key) == FileDigest(digest: expected))
    }
}
