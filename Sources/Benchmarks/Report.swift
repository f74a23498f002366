import Foundation

/// The benchmark's output: a table on stdout, `docs/BENCHMARKS.md` and an SVG plot of
/// latency against connections.
package enum Report {
    /// The figures as Markdown tables (also what is printed).
    package static func tables(_ suite: BenchmarkSuite) -> String {
        let rounds = suite.reads.map(\.rounds.count).max() ?? 1
        var text = "### Host reads (closed loop, \(suite.presentationBytes)-byte reply; "
        text += rounds > 1
            ? "each row the median of \(rounds) interleaved rounds by requests/s, with that round's latency and CPU)\n\n"
            : "one round)\n\n"
        text += "| server | connections | requests/s | p50 µs | p99 µs | server CPU µs/request | rounds: requests/s / p99 µs / CPU µs |\n"
        text += "|---|---:|---:|---:|---:|---:|---|\n"
        for row in suite.reads {
            let spread = row.rounds.map { round in
                "\(Int(round.result.throughput.rounded())) / \(f(round.result.p99)) / \(round.serverMicroseconds.map(f) ?? "–")"
            }.joined(separator: ", ")
            text += line(row).dropLast() + " \(row.serverMicroseconds.map(f) ?? "–") | \(spread.isEmpty ? "–" : spread) |\n"
        }
        text += redisRatios(suite.reads)
        let writeRounds = suite.writes.map(\.rounds.count).max() ?? 1
        text += "\n### Durable writes (3 KiB timeline; each connection its own widget/row/file; "
        text += writeRounds > 1
            ? "each row the median of \(writeRounds) interleaved rounds by commits/s, with that round's latency)\n\n"
            : "one round)\n\n"
        text += "| store | connections | commits/s | p50 µs | p99 µs | p99.9 µs | mean µs | starved writers | rounds: commits/s / p99 µs / starved |\n"
        text += "|---|---:|---:|---:|---:|---:|---:|---:|---|\n"
        for row in suite.writes {
            let spread = row.rounds.map {
                "\(Int($0.result.throughput.rounded())) / \(f($0.result.p99)) / \($0.result.starved)"
            }.joined(separator: ", ")
            // p99.9, the mean and the starved writers beside p99: a store that lets a few
            // writers starve (SQLCipher's busy handler) keeps its p99 low and shows it there.
            text += line(row).dropLast()
                + " \(f(row.result.p999)) | \(f(row.result.mean)) | \(row.result.starved) | \(spread.isEmpty ? "–" : spread) |\n"
        }
        text += "\n### Growth with the store's size (PasscodeKDF=minimum: unlock and passcode change exclude Argon2id's cost)\n\n"
        text += "| timelines | start to READY=1 ms | index complete (first ReloadTimelines) ms | unlock ms | lock+purge ms "
            + "| passcode change ms | first class-A read ms | host read p99 / max while indexing ms | ListWidgets page of 100 ms | RSS MiB "
            + "| first provider write after an orderly restart (spawn to reply) ms "
            + "| first provider write after a crash (SIGKILL, journaled writes replayed; spawn to reply) ms |\n"
        text += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        for row in suite.growth {
            text += "| \(row.timelines) | \(f(row.startSeconds * 1000)) | \(f(row.listAllMs)) | \(f(row.unlockMs)) | \(f(row.lockMs)) | "
                + "\(f(row.passcodeChangeMs)) | \(f(row.firstReadMs)) | \(f(row.indexingReadP99Ms)) / \(f(row.indexingReadMaxMs)) | \(f(row.listPageMs)) "
                + "| \(f(Double(row.rssKiB) / 1024)) | \(f(row.writeAfterRestartMs)) | \(f(row.writeAfterCrashMs)) |\n"
        }
        if !suite.fanout.isEmpty { text += fanoutTable(suite.fanout) }
        if !suite.skipped.isEmpty {
            text += "\nNot measured: " + suite.skipped.joined(separator: "; ") + "\n"
        }
        return text
    }

    /// The unlock fan-out rows (``FanoutBenchmark``): the median round by the last host's
    /// time, and every round's.
    static func fanoutTable(_ rows: [(subject: String, row: FanoutBenchmark.Row)]) -> String {
        var text = "\n### Unlock fan-out (class A, PasscodeKDF=minimum; each host its own connection watching one of "
        text += "the widgets; the median round by the time from sending Unlock to the last host holding content)\n\n"
        text += "| daemon | hosts | widgets | provider writing | unlock ms | Unlock sent → last host ms "
            + "| Unlock reply → last host ms | daemon loop CPU ms | client read CPU ms "
            + "| rounds: sent → last host ms / daemon CPU ms |\n"
        text += "|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n"
        for (subject, row) in rows {
            let median = row.median
            let spread = row.rounds.map { "\(f($0.sinceSentMs)) / \(f($0.daemonCPUMs))" }.joined(separator: ", ")
            text += "| \(subject) | \(row.hosts) | \(row.widgets) | \(row.writing ? "yes (\(row.writes) writes)" : "no") "
                + "| \(f(median.unlockMs)) | \(f(median.sinceSentMs)) | \(f(median.lastHostMs)) | \(f(median.daemonCPUMs)) "
                + "| \(f(median.clientCPUMs)) | \(spread) |\n"
        }
        return text
    }

    /// widgetd's read rate over Redis's GET rate at each connection count, for each
    /// client shape: the comparison the read rows exist for, in one line per shape.
    static func redisRatios(_ rows: [BenchmarkSuite.Row]) -> String {
        var text = ""
        for shape in ReadClientShape.allCases {
            let suffix = shape.subjectSuffix
            let ratios = rows.filter { $0.subject == "widgetd GetPresentation" + suffix }.compactMap { row -> String? in
                guard let redis = rows.first(where: { $0.subject == "redis-server GET" + suffix && $0.connections == row.connections })
                else { return nil }
                return "\(row.connections): \(String(format: "%.2f", row.result.throughput / redis.result.throughput))×"
            }
            if !ratios.isEmpty { text += "widgetd / Redis GET, \(shape.rawValue) client: " + ratios.joined(separator: ", ") + "\n" }
        }
        return text.isEmpty ? "" : "\n" + text
    }

    private static func line(_ row: BenchmarkSuite.Row) -> String {
        "| \(row.subject) | \(row.connections) | \(Int(row.result.throughput.rounded())) | \(f(row.result.p50)) | \(f(row.result.p99)) |\n"
    }

    static func f(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.2f", value)
    }

    /// The machine: CPU model, cores, kernel, memory, file system of the temp directory.
    package static func machine() -> String {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let memory = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("MemTotal") }
            .map { String($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
            .flatMap(Int.init).map { "\($0 / 1024 / 1024) GiB" } ?? "?"
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) RAM, Linux \(release)"
    }

    /// An SVG line chart: p50 and p99 latency against connections for each read server.
    package static func svg(_ suite: BenchmarkSuite) -> String {
        let subjects = suite.reads.reduce(into: [String]()) { if !$0.contains($1.subject) { $0.append($1.subject) } }
        let connections = Array(Set(suite.reads.map(\.connections))).sorted()
        let maxLatency = max(1, suite.reads.map(\.result.p99).max() ?? 1)
        let (width, height, left, right, top, bottom) = (720.0, 420.0, 70.0, 230.0, 40.0, 50.0)
        let plotW = width - left - right, plotH = height - top - bottom
        let logMax = log10(maxLatency * 1.2), logMin = log10(max(1, (suite.reads.map(\.result.p50).min() ?? 1) / 1.5))
        func x(_ c: Int) -> Double {
            guard connections.count > 1, let i = connections.firstIndex(of: c) else { return left + plotW / 2 }
            return left + plotW * Double(i) / Double(connections.count - 1)
        }
        func y(_ v: Double) -> Double { top + plotH * (1 - (log10(max(v, 1)) - logMin) / max(0.01, logMax - logMin)) }
        let colours = ["#d62728", "#1f77b4", "#7f7f7f", "#2ca02c", "#9467bd"]
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="20" font-size="14">Host read latency against connections (solid p50, dashed p99; log scale)</text>
            <line x1="\(left)" y1="\(top + plotH)" x2="\(left + plotW)" y2="\(top + plotH)" stroke="black"/>
            <line x1="\(left)" y1="\(top)" x2="\(left)" y2="\(top + plotH)" stroke="black"/>
            <text x="\(left + plotW / 2)" y="\(height - 10)" text-anchor="middle">connections</text>
            <text x="15" y="\(top + plotH / 2)" transform="rotate(-90 15 \(top + plotH / 2))" text-anchor="middle">latency (µs)</text>

            """
        for c in connections {
            svg += "<text x=\"\(x(c))\" y=\"\(top + plotH + 18)\" text-anchor=\"middle\">\(c)</text>\n"
        }
        var tick = pow(10, floor(logMin))
        while log10(tick) <= logMax {
            for m in [1.0, 2.0, 5.0] where log10(tick * m) >= logMin && log10(tick * m) <= logMax {
                let ty = y(tick * m)
                svg += "<line x1=\"\(left - 4)\" y1=\"\(ty)\" x2=\"\(left + plotW)\" y2=\"\(ty)\" stroke=\"#ddd\"/>"
                svg += "<text x=\"\(left - 6)\" y=\"\(ty + 4)\" text-anchor=\"end\">\(Int(tick * m))</text>\n"
            }
            tick *= 10
        }
        for (index, subject) in subjects.enumerated() {
            let colour = colours[index % colours.count]
            let rows = suite.reads.filter { $0.subject == subject }.sorted { $0.connections < $1.connections }
            for (dash, value) in [("", \LoopResult.p50), (" stroke-dasharray=\"5,4\"", \LoopResult.p99)] {
                let points = rows.map { "\(x($0.connections)),\(y($0.result[keyPath: value]))" }.joined(separator: " ")
                svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"\(dash) points=\"\(points)\"/>\n"
            }
            let ly = top + 20 + Double(index) * 20
            svg += "<line x1=\"\(left + plotW + 15)\" y1=\"\(ly - 4)\" x2=\"\(left + plotW + 35)\" y2=\"\(ly - 4)\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
            svg += "<text x=\"\(left + plotW + 40)\" y=\"\(ly)\">\(subject)</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    /// Writes BENCHMARKS.md (keeping any hand-written analysis after the marker) and the plot.
    /// The directory is made if missing: `--output` names a fresh one for an A/B that must
    /// not rewrite docs/, and a run of minutes must not end without its report.
    package static func write(_ suite: BenchmarkSuite, to directory: String, command: String, date: Date = Date()) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/BENCHMARKS.md"
        let marker = "<!-- analysis: kept across runs -->"
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let analysis = existing.range(of: marker).map { String(existing[$0.lowerBound...]) }
            ?? "\(marker)\n\n## Analysis\n\n(not written yet)\n"
        let formatter = ISO8601DateFormatter()
        var text = "# Benchmarks\n\n"
        text += "Generated by `\(command)`; the tables are rewritten by each run, the analysis below them is kept.\n\n"
        text += "- Date: \(formatter.string(from: date))\n- Machine: \(machine())\n"
        text += "- Every figure comes from one run, with one client (`Sources/Benchmarks/SocketClient.swift`) against each "
        text += "server in turn, closed loop: reads from one thread waiting on every connection with epoll "
        text += "(`MultiplexedLoop.swift`; the servers alternate in rounds, `ReadRounds.swift`) and, in the rows marked \"thread per connection\", from one blocking thread per connection as separate host processes connect (`ClosedLoop.swift`, same rounds), widgetd's writes from the same one-thread loop (which then checks that the widgets' generations moved by the number of replies), SQLCipher's and the disk floors' in-process from one blocking thread per connection (`ClosedLoop.swift`), the transport floor's (the echo server) from the one-thread loop.\n\n"
        text += tables(suite)
        text += "\n![latency against connections](benchmarks-latency.svg)\n\n"
        text += analysis
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try svg(suite).write(toFile: "\(directory)/benchmarks-latency.svg", atomically: true, encoding: .utf8)
    }
}
