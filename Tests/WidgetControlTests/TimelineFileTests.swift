import Foundation
import Testing
@testable import WidgetControl

@Suite struct TimelineFileTests {
    static let file = #"{"entries":[{"date":"2026-11-29T13:00:00Z","fields":{"t":{"value":21,"privacy":"sensitive"}}}],"#
        + #""policy":{"kind":"never"},"placeholder":{"fields":{"t":{"value":0}}},"family":"systemSmall"}"#

    private func write(_ text: String) throws -> String {
        let path = try TemporaryDirectory.make() + "/timeline.json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func putSendsTheFileWithTheWidgetFromTheCommandLine() throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"generation":7}"#)])
        let result = widgetctl(["put", "a/b", try write(Self.file)], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "Stored a/b, generation 7.\n")
        // The file's members as written (fields keep their order), members by name.
        #expect(server.requests == [
            #"{"method":"io.widgetd.Provider.PutTimeline","parameters":{"entries":[{"date":"2026-11-29T13:00:00Z","#
                + #""fields":{"t":{"value":21,"privacy":"sensitive"}}}],"family":"systemSmall","placeholder":{"fields":{"t":{"value":0}}},"#
                + #""policy":{"kind":"never"},"widget":"a/b"}}"#,
        ])
    }

    /// A file that names its widget (as the example timelines do) may be given alone.
    @Test func putTakesTheWidgetFromTheFileWhenItNamesOne() throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"generation":3}"#)])
        let named = #"{"widget":"com.example.clock/world","# + Self.file.dropFirst()
        let result = widgetctl(["put", try write(named)], socket: server.path)
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(result.standardOutput == "Stored com.example.clock/world, generation 3.\n")
        #expect(server.requests.first?.hasSuffix(#""widget":"com.example.clock/world"}}"#) == true)

        // A file that names none says what to give; one that names a bad id says so.
        let unnamed = widgetctl(["put", try write(Self.file)], socket: server.path)
        #expect(unnamed.exitCode == 64)
        #expect(unnamed.standardError.contains("names no widget (\"widget\": ...): give it, widgetctl put WIDGET FILE"))
        let bad = widgetctl(["put", "-"], socket: server.path, input: BytesInput(#"{"widget":"a/../b","# + Self.file.dropFirst()))
        #expect(bad.exitCode == 64)
        #expect(bad.standardError.contains("'a/../b'"))
    }

    @Test func familyOptionOverridesTheFile() throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"generation":1}"#)])
        let result = widgetctl(
            ["put", "a/b", "-", "--family", "accessoryCircular", "--json"], socket: server.path, input: BytesInput(Self.file))
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "{\"generation\":1}\n")
        let parameters = try #require(server.parsedRequests.first?["parameters"] as? [String: Any])
        #expect(parameters["family"] as? String == "accessoryCircular")
        #expect(parameters["widget"] as? String == "a/b")
    }

    @Test func appendSendsOnlyEntries() throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"generation":8}"#)])
        let result = widgetctl(["append", "a/b", "-"], socket: server.path, input: BytesInput(#"{"entries":[]}"#))
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "Appended to a/b, generation 8.\n")
        #expect(server.requests == [#"{"method":"io.widgetd.Provider.AppendEntries","parameters":{"entries":[],"widget":"a/b"}}"#])
    }

    /// Files that never reach the daemon, and what is said about them.
    static let badFiles: [(String, String, String)] = [
        ("put", "[1]", "widgetctl: standard input must hold a JSON object with \"entries\"\n"),
        ("put", "{", "widgetctl: standard input:1:2: not JSON: expected a key\n"),
        // widgetd rejects what Foundation's decoder lets through: the same file fails here.
        ("put", #"{"entries":[],}"#, "widgetctl: standard input:1:15: not JSON: expected a key\n"),
        ("put", #"{"entries":[1,]}"#, "widgetctl: standard input:1:15: not JSON: unexpected byte\n"),
        ("put", #"{"policy":{"kind":"never"}}"#, "widgetctl: standard input: \"entries\" must be an array of entries\n"),
        ("put", #"{"entries":[],"widget":"x/y"}"#, "widgetctl: standard input is for x/y, not a/b\n"),
        ("put", #"{"entries":[],"widgets":"a/b"}"#,
         "widgetctl: standard input: unknown key \"widgets\" (expected entries, policy, placeholder, family, widget)\n"),
        ("put", #"{"entries":[],"family":3}"#, "widgetctl: standard input: \"family\" has the wrong type\n"),
        ("append", #"{"entries":[],"policy":{"kind":"never"}}"#,
         "widgetctl: append sends only \"entries\"; \"policy\" needs widgetctl put\n"),
    ]

    @Test(arguments: badFiles)
    func badTimelineFilesFailBeforeSending(command: String, text: String, message: String) throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl([command, "a/b", "-"], socket: server.path, input: BytesInput(text))
        #expect(result.exitCode == 1)
        #expect(result.standardError == message)
        #expect(server.requests.isEmpty)
    }

    @Test func missingFileIsReportedByName() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(["put", "a/b", "/nonexistent/t.json"], socket: server.path)
        #expect(result.exitCode == 1)
        #expect(result.standardError == "widgetctl: cannot read /nonexistent/t.json: No such file or directory\n")
    }
}
