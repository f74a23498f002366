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
        #expect(Self.timelineFiles.count == 5)
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
    /// library check nor debian/rules' build step may start a build then, and
    /// without it debian/rules does build (so that this test can fail).
    @Test func packagingWithoutABuildBuildsNothing() throws {
        let dryRun = try ChildProcess.run("/usr/bin/make", ["-n", "-C", Self.root.path, "ldd"])
        #expect(dryRun.status == 0, "\(dryRun.error)")
        #expect(!dryRun.output.contains("swift build"), "make ldd would build:\n\(dryRun.output)")
        func debianBuild(noBuild: Bool) throws -> String {
            var environment = ProcessInfo.processInfo.environment
            environment["MAKEFLAGS"] = nil
            environment["WIDGETD_NO_BUILD"] = noBuild ? "1" : nil
            let run = try ChildProcess.run(
                "/usr/bin/make", ["-n", "-C", Self.root.path, "-f", "debian/rules", "override_dh_auto_build-arch"],
                environment: environment
            )
            #expect(run.status == 0, "\(run.error)")
            return run.output
        }
        let skipped = try debianBuild(noBuild: true)
        #expect(!skipped.contains("swift build"), "WIDGETD_NO_BUILD=1 debian/rules would build:\n\(skipped)")
        #expect(try debianBuild(noBuild: false).contains("swift build"))
    }

    /// debhelper writes the maintainer scripts (dh_installsystemd, dh_installsysusers,
    /// dh_installtmpfiles): only the purge of the data is ours, and debhelper's part
    /// goes where its token stands alone on a line (a token inside a comment would
    /// splice shell code into it).
    @Test func theMaintainerScriptsAreGeneratedByDebhelper() throws {
        let debian = Self.root.appendingPathComponent("debian")
        for script in ["preinst", "postinst", "prerm"] {
            #expect(!FileManager.default.fileExists(atPath: debian.appendingPathComponent(script).path), "debian/\(script)")
        }
        let rules = try String(contentsOf: debian.appendingPathComponent("rules"), encoding: .utf8)
        #expect(rules.contains("\tdh $@\n"))
        let postrm = try String(contentsOf: debian.appendingPathComponent("postrm"), encoding: .utf8)
        let lines = postrm.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { $0.contains("#DEBHELPER#") } == ["#DEBHELPER#"])
        #expect(postrm.contains("rm -rf \"${DPKG_ROOT:-}/var/lib/widgetd\""))
    }

    private static let systemdAnalyze: String? =
        ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: systemdAnalyze != nil, "needs systemd-analyze"))
    func theSystemServiceIsHardenedToAnExposureOfAtMostOne() throws {
        let text = try ChildProcess.run(
            Self.systemdAnalyze!, ["security", "--offline=yes", Self.root.appendingPathComponent("systemd/widgetd.service").path]
        ).output
        let line = try #require(text.split(separator: "\n").first { $0.contains("Overall exposure level") })
        // "…widgetd.service: 0.5 SAFE 😀", or ":-}" instead of the emoji outside a UTF-8 locale.
        let afterName = try #require(line.range(of: "widgetd.service:")).upperBound
        let score = try #require(line[afterName...].split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 1.0)
    }
}
