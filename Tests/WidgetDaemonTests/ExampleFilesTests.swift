import Foundation
import Testing
import TestSupport
import WidgetModel
@testable import WidgetDaemon

/// The repository's example configuration, timelines and units stay usable.
@Suite struct ExampleFilesTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The shape of `io.widgetd.Provider.PutTimeline`'s parameters, as the IDL declares it.
    private struct PutTimeline: Decodable {
        struct Field: Decodable { let value: JSONValue; let privacy: String? }
        struct Relevance: Decodable { let score: Double; let duration: Double }
        struct Entry: Decodable { let date: String; let relevance: Relevance?; let fields: [String: Field] }
        struct Policy: Decodable { let kind: String; let date: String? }
        struct Placeholder: Decodable { let fields: [String: Field] }
        let widget: WidgetID
        let family: String?
        let entries: [Entry]
        let policy: Policy?
        let placeholder: Placeholder?
    }

    private static let timelineFiles: [String] = {
        let directory = root.appendingPathComponent("config/timelines").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted().map { directory + "/" + $0 }
    }()

    @Test func thereIsAnExampleTimelinePerExampleProvider() throws {
        #expect(Self.timelineFiles.count == 4)
    }

    @Test(arguments: timelineFiles)
    func exampleTimelinesHaveThePutTimelineShape(path: String) throws {
        let data = try #require(FileManager.default.contents(atPath: path))
        let timeline = try JSONDecoder().decode(PutTimeline.self, from: data)
        #expect(!timeline.entries.isEmpty)
        #expect(timeline.placeholder != nil)
        #expect(["atEnd", "after", "never"].contains(timeline.policy?.kind ?? "atEnd"))
        let privacies = timeline.entries.flatMap { $0.fields.values.compactMap(\.privacy) }
        #expect(privacies.allSatisfy { $0 == "sensitive" || $0 == "public" })
        // The file is named after the provider that writes it.
        #expect(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent == timeline.widget.provider)
    }

    /// `WIDGETD_NO_BUILD=1 scripts/package` packages what is built: neither the
    /// package script nor the library check it runs may start a build then.
    @Test func packagingWithoutABuildBuildsNothing() throws {
        let dryRun = try ChildProcess.run("/usr/bin/make", ["-n", "-C", Self.root.path, "ldd"])
        #expect(dryRun.status == 0, "\(dryRun.error)")
        #expect(!dryRun.output.contains("swift build"), "make ldd would build:\n\(dryRun.output)")
        let script = try String(contentsOf: Self.root.appendingPathComponent("scripts/package"), encoding: .utf8)
        let builds = script.split(separator: "\n").filter { $0.contains("make") && $0.contains(" build") && !$0.hasPrefix("#") }
        #expect(builds.allSatisfy { $0.contains("WIDGETD_NO_BUILD") }, "\(builds)")
    }

    private static let systemdAnalyze: String? =
        ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: systemdAnalyze != nil, "needs systemd-analyze"))
    func theSystemServiceIsHardenedToAnExposureOfAtMostOne() throws {
        let text = try ChildProcess.run(
            Self.systemdAnalyze!, ["security", "--offline=yes", Self.root.appendingPathComponent("systemd/widgetd.service").path]
        ).output
        let line = try #require(text.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 1.0)
    }
}
