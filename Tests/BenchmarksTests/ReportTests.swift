import Benchmarks
import Foundation
import Testing

/// Where a run's report goes.
struct ReportTests {
    @Test func aReportIsWrittenIntoADirectoryThatDoesNotExistYet() throws {
        let parent = NSTemporaryDirectory() + "widgetd-report-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let directory = parent + "/a/b"
        let options = BenchmarkSuite.Options(widgetdBinary: "/nonexistent", benchBinary: "/nonexistent", command: "test")
        let suite = try BenchmarkSuite(options: options)
        try Report.write(suite, to: directory, command: "test")
        let text = try String(contentsOfFile: directory + "/BENCHMARKS.md", encoding: .utf8)
        #expect(text.hasPrefix("# Benchmarks"))
        #expect(FileManager.default.fileExists(atPath: directory + "/benchmarks-latency.svg"))
    }
}
