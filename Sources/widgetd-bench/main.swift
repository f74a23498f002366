import Benchmarks
import Foundation

// widgetd-bench: measures widgetd beside redis-server, SQLCipher and the floors.
// `--smoke` runs every part for a fraction of a second (for CI); `--echo-server PATH`
// is the floor server this program starts for itself; `--output DIR` writes
// BENCHMARKS.md and the plot there (default: docs/ when run from the package root).
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: widgetd-bench [--smoke] [--only reads,writes,growth,fanout | --only decode | --only encode | --only containers
                         | --only actions]
                         [--growth 0,1000,...] [--duration SECONDS] [--rounds N] [--connections 1,8,32]
                         [--threaded-connections 8] [--fanout-hosts 100,1000] [--growth-store ROOT] [--output DIR]
    Measures widgetd beside redis-server, SQLCipher and the floors; without --output,
    rewrites docs/BENCHMARKS.md and docs/benchmarks-latency.svg when run from the package root.
    --rounds: interleaved rounds of the read and write rows (median kept; default 3);
    --connections: the read rows' connection counts (one client thread for all);
    --threaded-connections: those of the read rows whose client gives each connection
    its own blocking thread, as separate host processes do (default 8; "" for none);
    --only fanout: the unlock fan-out rows (100 and 1,000 watching hosts, quiet and with a
    provider writing, then quiet with a widget per host; --fanout-hosts: other host counts);
    --growth-store ROOT: also measure the daemon root ROOT (etc/, state/) as it is, as
    the last growth row (a store filled once, e.g. a million timelines, and reused);
    --only decode: the CPU of one PutTimeline before its commit, in µs (no daemon, no report
    written): the general way step by step, the one-pass transcription of plain and glance
    entries, and a presentation's read of the stored body, whole and as an excerpt.
    --only encode: one presentation reply encoded through the Encodable tree and written
    by hand, interleaved (no daemon, no report written).
    --only containers: our timer heap, call queue and syscalls against swift-collections'
    and swift-system's, interleaved (no daemon, no report written).
    --only actions: an alwaysAllowed action from host to provider beside a GetPresentation
    round trip, interleaved against one daemon (no report written; with --smoke, briefly).
    WIDGETD_BIN=PATH measures another widgetd; WIDGETD_BASELINE_BIN=PATH adds a second
    widgetd to the read and write rounds and the fan-out rows (an A/B in the same run).

    """
// An unknown argument (a mistyped option, or --help) must not start a six-minute run
// that rewrites the committed figures.
if arguments.first != "--echo-server" {
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        switch argument {
        case "--smoke": continue
        case "--output", "--growth", "--growth-store", "--duration", "--only", "--rounds", "--connections", "--threaded-connections",
            "--fanout-hosts":
            if rest.popFirst() != nil { continue }
            FileHandle.standardError.write(Data("widgetd-bench: \(argument) needs a value\n\(usage)".utf8))
            exit(2)
        case "--help", "-h":
            print(usage, terminator: "")
            exit(0)
        default:
            FileHandle.standardError.write(Data("widgetd-bench: unknown argument \(argument)\n\(usage)".utf8))
            exit(2)
        }
    }
}
do {
    if arguments.first == "--echo-server", arguments.count == 2 { try EchoServer.serve(at: arguments[1]) }
    // The decode micro-benchmark needs no daemon and writes no report.
    if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count, arguments[index + 1] == "decode" {
        print(DecodeBenchmark.report(try DecodeBenchmark.run()), terminator: "")
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count, arguments[index + 1] == "encode" {
        print(EncodeBenchmark.report(try EncodeBenchmark.run()), terminator: "")
        exit(0)
    }
    if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count, arguments[index + 1] == "containers" {
        let rounds = arguments.firstIndex(of: "--rounds").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil }
        print(ContainerBenchmark.report(try ContainerBenchmark.run(rounds: rounds ?? 7)), terminator: "")
        exit(0)
    }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let directory = executable.deletingLastPathComponent().path
    let widgetd = ProcessInfo.processInfo.environment["WIDGETD_BIN"] ?? "\(directory)/widgetd"
    if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count, arguments[index + 1] == "actions" {
        let smoke = arguments.contains("--smoke")
        let result = try ActionBenchmark.run(binary: widgetd, rounds: smoke ? 1 : 5, perRound: smoke ? 16 : 120)
        print(ActionBenchmark.report(result), terminator: "")
        exit(0)
    }
    let baseline = ProcessInfo.processInfo.environment["WIDGETD_BASELINE_BIN"].flatMap { $0.isEmpty ? nil : $0 }
    let command = (["widgetd-bench"] + arguments).joined(separator: " ")
    let smoke = arguments.contains("--smoke")
    var options = smoke
        ? BenchmarkSuite.Options.smoke(widgetdBinary: widgetd, benchBinary: executable.path, command: command)
        : BenchmarkSuite.Options(widgetdBinary: widgetd, benchBinary: executable.path, command: command)
    options.baselineWidgetdBinary = baseline
    if let index = arguments.firstIndex(of: "--output"), index + 1 < arguments.count {
        options.outputDirectory = arguments[index + 1]
    } else if !smoke, FileManager.default.fileExists(atPath: "docs") {
        options.outputDirectory = "docs"
    }
    if let index = arguments.firstIndex(of: "--growth"), index + 1 < arguments.count {
        options.growthSizes = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
    }
    if let index = arguments.firstIndex(of: "--growth-store"), index + 1 < arguments.count {
        options.growthStore = arguments[index + 1]
    }
    if let index = arguments.firstIndex(of: "--duration"), index + 1 < arguments.count, let seconds = Double(arguments[index + 1]) {
        options.duration = seconds
    }
    if let index = arguments.firstIndex(of: "--rounds"), index + 1 < arguments.count, let rounds = Int(arguments[index + 1]) {
        options.readRounds = max(rounds, 1)
    }
    if let index = arguments.firstIndex(of: "--connections"), index + 1 < arguments.count {
        options.readConnections = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
    }
    if let index = arguments.firstIndex(of: "--threaded-connections"), index + 1 < arguments.count {
        options.threadedReadConnections = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
    }
    if let index = arguments.firstIndex(of: "--fanout-hosts"), index + 1 < arguments.count {
        options.fanoutHosts = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
    }
    if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count {
        options.parts = Set(arguments[index + 1].split(separator: ",").map(String.init))
    }
    let suite = try BenchmarkSuite(options: options)
    try suite.run()
    print(Report.tables(suite))
    if let output = options.outputDirectory {
        try Report.write(suite, to: output, command: "swift run -c release widgetd-bench" + (arguments.isEmpty ? "" : " " + arguments.joined(separator: " ")))
        print("wrote \(output)/BENCHMARKS.md and \(output)/benchmarks-latency.svg")
    }
} catch {
    FileHandle.standardError.write(Data("widgetd-bench: \(error)\n".utf8))
    exit(1)
}
