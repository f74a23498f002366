import Foundation
import Testing
import VarlinkTransport

/// A connection's unsent replies: kept in order across partial sends, in secure memory,
/// each protected one marked until its last byte is sent (issue 13, defect 2).
/// The tag is opaque to the transport: any type the service chooses (here a stand-in
/// for its `ReplyProtection`).
@Suite struct UnsentOutputTests {
    private enum Tag: Equatable {
        case classA
        case classB(openTimeline: String)
    }

    private typealias UnsentOutput = VarlinkTransport.UnsentOutput<Tag>

    private let classA = Tag.classA
    private let classB = Tag.classB(openTimeline: "com.example.mail/inbox")

    private func append(_ output: inout UnsentOutput, _ text: String, _ protection: Tag? = nil) throws {
        try Array(text.utf8).withUnsafeBytes { try output.append($0, protection: protection) }
    }

    private func unsent(_ output: UnsentOutput) -> String {
        output.withUnsentBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test func unsentBytesStayInOrderAcrossPartialSends() throws {
        var output = UnsentOutput()
        #expect(output.isEmpty)
        try append(&output, "plain;")
        try append(&output, "secret-a;", classA)
        try append(&output, "more")
        #expect(output.count == 19)
        output.removeFirst(4)
        #expect(unsent(output) == "n;secret-a;more")
        output.removeFirst(15)
        #expect(output.isEmpty)
        try append(&output, "next")
        #expect(unsent(output) == "next")
    }

    @Test func aProtectedReplyIsMarkedUntilItsLastByteIsSent() throws {
        var output = UnsentOutput()
        try append(&output, "plain;")
        try append(&output, "secret-a;", classA)
        try append(&output, "secret-b;", classB)
        #expect(output.firstProtection { _ in true } == classA)
        #expect(output.firstProtection { $0 != .classA } == classB)
        // Partly sent: the rest is still a copy of the content.
        output.removeFirst(6 + 8)
        #expect(output.firstProtection { _ in true } == classA)
        output.removeFirst(1)
        #expect(output.firstProtection { _ in true } == classB)
        output.removeFirst(9)
        #expect(output.firstProtection { _ in true } == nil)
    }

    @Test func compactionKeepsEachMarkOnItsReply() throws {
        var output = UnsentOutput()
        let big = String(repeating: "p", count: 100_000)
        try append(&output, big)
        try append(&output, "secret-a", classA)
        // Past the compaction threshold: the unsent rest moves to new storage.
        output.removeFirst(UnsentOutput.compactionBytes + 10)
        #expect(output.count == 100_000 - UnsentOutput.compactionBytes - 10 + 8)
        #expect(unsent(output).hasSuffix("psecret-a"))
        #expect(output.firstProtection { _ in true } == classA)
        output.removeFirst(output.count - 8)
        #expect(unsent(output) == "secret-a")
        #expect(output.firstProtection { _ in true } == classA)
        output.removeFirst(8)
        #expect(output.firstProtection { _ in true } == nil)
    }

    @Test func removeAllDropsTheBytesAndTheirMarks() throws {
        var output = UnsentOutput()
        try append(&output, "secret-a", classA)
        output.removeAll()
        #expect(output.isEmpty)
        #expect(output.firstProtection { _ in true } == nil)
        try append(&output, "after")
        #expect(unsent(output) == "after")
    }

    /// The bytes sit in a `sodium_malloc` region (its own mapping, behind a guard page),
    /// not in the malloc heap where freed copies linger.
    @Test func unsentBytesLiveOutsideTheMallocHeap() throws {
        var output = UnsentOutput()
        try append(&output, "secret-a", classA)
        let address = output.withUnsentBytes { UInt(bitPattern: $0.baseAddress) }
        // Read to the end: a /proc file has no size for a single read to go by.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        let mapping = maps.split(separator: "\n").first { line in
            let range = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt($0, radix: 16) }
            return range.count == 2 && range[0] <= address && address < range[1]
        }
        let line = try #require(mapping)
        #expect(!line.hasSuffix("[heap]"), "\(line)")
        // The page before the region's data is the guard sodium_malloc sets: no access.
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let guardPage = (address & ~(pageSize - 1)) - pageSize
        let guardLine = maps.split(separator: "\n").first { line in
            let range = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt($0, radix: 16) }
            return range.count == 2 && range[0] <= guardPage && guardPage < range[1]
        }
        #expect(guardLine?.split(separator: " ")[1].hasPrefix("---") == true, "\(guardLine ?? "none")")
    }
}
