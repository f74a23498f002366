import Foundation
import Glibc
import WidgetdWire

/// The whole benchmark: host reads, durable writes and growth with the store's size,
/// each beside its peers, measured by the same client in the same run.
package final class BenchmarkSuite {
    /// What to run and how long.
    package struct Options: Sendable {
        /// Seconds each closed-loop measurement lasts.
        package var duration: Double = 3
        /// Connections for the read benchmark.
        package var readConnections = [1, 8, 32]
        /// Connections for the read rows whose client gives each connection its own
        /// blocking thread (``ReadClientShape/threadPerConnection``), measured in the same
        /// rounds as the multiplexed rows.
        package var threadedReadConnections = [8]
        /// Interleaved rounds of the read and write rows; each server's median round is reported
        /// (see ``ReadRounds``).
        package var readRounds = 3
        /// Connections (writers) for the write benchmark.
        package var writeConnections = [1, 8]
        /// Stored timelines at which growth is measured.
        package var growthSizes = [0, 1_000, 10_000, 100_000]
        /// A daemon root (`etc/`, `state/`) filled beforehand, measured as one more growth
        /// row after the others, as it is (`--growth-store`): a million timelines take
        /// minutes and gigabytes to write, so that store is made once and reused.
        package var growthStore: String?
        /// Size of a written timeline's entries, bytes.
        package var timelineBytes = 3 * 1024
        /// The widgetd binary.
        package var widgetdBinary: String
        /// Another widgetd binary measured in the same read rounds (an A/B of a change:
        /// `WIDGETD_BASELINE_BIN`); `nil`: none.
        package var baselineWidgetdBinary: String?
        /// This program (re-run as `--echo-server PATH`).
        package var benchBinary: String
        /// The redis-server binary, if installed.
        package var redisBinary: String? = "/usr/bin/redis-server"
        /// Where BENCHMARKS.md and the plot go (nil: print only).
        package var outputDirectory: String?
        /// The command line, for the report.
        package var command: String
        /// The parts to run: `reads`, `writes`, `growth`, `fanout`.
        package var parts: Set<String> = ["reads", "writes", "growth", "fanout"]
        /// Watching hosts of the unlock fan-out rows (``FanoutBenchmark``).
        package var fanoutHosts = [100, 1_000]
        /// Unlocks measured per fan-out row (the median kept, every one shown).
        package var fanoutRounds = 5

        /// The defaults of a full run.
        package init(widgetdBinary: String, benchBinary: String, command: String) {
            self.widgetdBinary = widgetdBinary
            self.benchBinary = benchBinary
            self.command = command
        }

        /// A run that only proves the harness works: seconds, not minutes.
        package static func smoke(widgetdBinary: String, benchBinary: String, command: String) -> Options {
            var options = Options(widgetdBinary: widgetdBinary, benchBinary: benchBinary, command: command)
            options.duration = 0.2
            options.readConnections = [1, 2]
            options.threadedReadConnections = [2]
            options.readRounds = 1
            options.writeConnections = [1, 2]
            options.growthSizes = [0, 20]
            options.fanoutHosts = [10]
            options.fanoutRounds = 1
            return options
        }
    }

    /// One row of a closed-loop table.
    package struct Row: Sendable {
        /// What was measured (`widgetd`, `redis-server GET`, …).
        package let subject: String
        /// Concurrent connections (or writers).
        package let connections: Int
        /// Throughput and latency.
        package let result: LoopResult
        /// The server's CPU time (user and system) per request, microseconds: what
        /// the server costs, whatever else the machine is doing (reads only).
        package var serverMicroseconds: Double? = nil
        /// Every round of a read row, in the order measured (throughput and latency, and
        /// the server's CPU µs per request); the row itself is the median round.
        package var rounds: [(result: LoopResult, serverMicroseconds: Double?)] = []
    }

    /// Runs a read measurement with the client `shape` and charges the server's CPU time
    /// over it to its requests.
    private func measureRead(
        _ subject: String, connections n: Int, shape: ReadClientShape, server: ServerProcess?, path: String,
        framing: SocketClient.Framing, request: [UInt8]
    ) throws -> Row {
        let cpuBefore = server?.cpuSeconds
        let result: LoopResult
        switch shape {
        case .multiplexed:
            result = try MultiplexedLoop.run(connections: n, duration: options.duration) { _ in
                .init(client: try SocketClient(path: path, framing: framing), request: request)
            }
        case .threadPerConnection:
            result = try ClosedLoop.run(workers: n, duration: options.duration) { _ in
                let client = try SocketClient(path: path, framing: framing)
                return { try client.roundTrip(request) }
            }
        }
        var row = Row(subject: subject + shape.subjectSuffix, connections: n, result: result)
        if let cpuBefore, let cpuAfter = server?.cpuSeconds, result.completed > 0 {
            row.serverMicroseconds = (cpuAfter - cpuBefore) * 1e6 / Double(result.completed)
        }
        return row
    }

    /// Growth figures at one store size.
    package struct GrowthRow: Sendable {
        /// Stored timelines (besides five class-A probes).
        package let timelines: Int
        /// From spawning widgetd to its `READY=1` (median of three starts).
        package let startSeconds: Double
        /// Unlock round trip with `PasscodeKDF=minimum` (median of five).
        package let unlockMs: Double
        /// Lock round trip, class-A purge included (`ClassAGraceSec=0`; median of five).
        package let lockMs: Double
        /// SetPasscode round trip, current and new (median of three).
        package let passcodeChangeMs: Double
        /// GetPresentation of a class-A timeline not read since start, after unlock (median of five).
        package let firstReadMs: Double
        /// Resident memory after the measurements.
        package let rssKiB: Int
        /// How long filling the store to this size took (not a widgetd figure).
        package let fillSeconds: Double
        /// The first ReloadTimelines after start, answered once every stored timeline is indexed.
        package let listAllMs: Double
        /// A host's GetPresentation p99 while the index is still being filled after start
        /// (one connection, closed loop, the first 300 reads after READY=1).
        package let indexingReadP99Ms: Double
        /// The slowest of those reads (the longest the loop was held meanwhile).
        package let indexingReadMaxMs: Double
        /// A `ListWidgets` page of 100 (median of the first three pages), index complete.
        package let listPageMs: Double
        /// From spawning widgetd again, after an orderly stop of a daemon whose index was
        /// complete, to the answer of a provider's first `PutTimeline` sent at `READY=1`.
        package let writeAfterRestartMs: Double
        /// The same after a crash (SIGKILL) that left journaled writes to replay.
        package let writeAfterCrashMs: Double
    }

    /// Host reads, widgetd and its peers.
    package private(set) var reads: [Row] = []
    /// Durable writes, widgetd and its peers.
    package private(set) var writes: [Row] = []
    /// Growth figures, one row per store size.
    package private(set) var growth: [GrowthRow] = []
    /// Unlock fan-out rows: each host count without and with a provider writing, for
    /// widgetd and (if given) the baseline binary.
    private(set) var fanout: [(subject: String, row: FanoutBenchmark.Row)] = []
    /// Peers that could not be measured, and why.
    package private(set) var skipped: [String] = []
    /// The size of the presentation reply read (and of the value Redis serves).
    package private(set) var presentationBytes = 0

    let options: Options
    let root: String

    /// A suite working under a fresh temporary directory.
    package init(options: Options) throws {
        self.options = options
        root = NSTemporaryDirectory() + "widgetd-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Runs every part in order.
    package func run() throws {
        if options.parts.contains("reads") { try measureReads() }
        if options.parts.contains("writes") { try measureWrites() }
        if options.parts.contains("growth") { try measureGrowth() }
        if options.parts.contains("fanout") { try measureFanout() }
    }

    // MARK: Unlock fan-out

    /// Every host count, quiet and with a provider writing, then quiet with a widget per
    /// host; the baseline binary's row next to each of widgetd's, the two in alternating order.
    private func measureFanout() throws {
        var binaries = [(subject: "widgetd", binary: options.widgetdBinary)]
        if let baseline = options.baselineWidgetdBinary { binaries.append(("widgetd (baseline binary)", baseline)) }
        var index = 0
        let shapes = options.fanoutHosts.flatMap { hosts in
            [(hosts, nil, false), (hosts, nil, true)] as [(Int, Int?, Bool)]
        } + options.fanoutHosts.map { ($0, $0, false) }
        for (hosts, widgets, writing) in shapes {
            let order = index % 2 == 0 ? binaries : binaries.reversed()
            var rows: [(subject: String, row: FanoutBenchmark.Row)] = []
            for (slot, entry) in order.enumerated() {
                let distinct = widgets.map { ", \($0) distinct widgets" } ?? ""
                log("fanout: \(entry.subject), \(hosts) hosts\(distinct)\(writing ? ", a provider writing" : "")")
                let row = try FanoutBenchmark.run(
                    root: "\(root)/fanout-\(index)-\(slot)", binary: entry.binary, hosts: hosts, widgets: widgets,
                    writing: writing, rounds: options.fanoutRounds, timelineBytes: options.timelineBytes)
                rows.append((entry.subject, row))
            }
            // Reported in a fixed order: widgetd first.
            fanout += rows.sorted { $0.subject.count < $1.subject.count }
            index += 1
        }
    }

    /// Starts the echo server (the transport's floor) at `root/NAME.sock`, logging to
    /// `root/NAME.log`, and returns once it accepts connections.
    private func startEchoServer(named name: String) throws -> ServerProcess {
        let path = "\(root)/\(name).sock"
        let echo = try ServerProcess(
            executable: options.benchBinary, arguments: ["--echo-server", path], socketPath: path,
            log: "\(root)/\(name).log")
        do {
            try echo.waitUntilConnectable(framing: .nulTerminated)
        } catch {
            echo.stop()
            throw error
        }
        return echo
    }

    // MARK: Host reads

    /// A read server as the rounds see it: what to call it and how to reach it.
    private struct ReadServer {
        let subject: String
        let process: ServerProcess?
        let path: String
        let framing: SocketClient.Framing
        let request: [UInt8]
    }

    private func measureReads() throws {
        let daemon = try BenchDaemon(root: "\(root)/reads", binary: options.widgetdBinary)
        try daemon.start()
        defer { daemon.stop() }
        let widget = "com.example.weather/forecast"
        let request = VarlinkRequest.encode(
            "io.widgetd.Host.GetPresentation", ["widget": widget, "surface": "homeScreen"])
        func prepare(_ daemon: BenchDaemon) throws -> Int {
            let setup = try daemon.client()
            try VarlinkRequest.check(setup, VarlinkRequest.putTimeline(widget, bytes: options.timelineBytes), "PutTimeline")
            return try VarlinkRequest.check(setup, request, "GetPresentation").count
        }
        presentationBytes = try prepare(daemon)
        var servers = [
            ReadServer(
                subject: "widgetd GetPresentation", process: daemon.server, path: daemon.socketPath,
                framing: .nulTerminated, request: request)
        ]
        var baseline: BenchDaemon?
        defer { baseline?.stop() }
        if let binary = options.baselineWidgetdBinary {
            let other = try BenchDaemon(root: "\(root)/reads-baseline", binary: binary)
            baseline = other
            try other.start()
            guard try prepare(other) == presentationBytes else { throw BenchError("the baseline widgetd's reply differs in size") }
            servers.append(ReadServer(
                subject: "widgetd GetPresentation (baseline binary)", process: other.server, path: other.socketPath,
                framing: .nulTerminated, request: request))
        }

        // Every server runs for the whole measurement, so the rounds can alternate between them.
        var redisServer: ServerProcess?
        defer { redisServer?.stop() }
        if let redis = options.redisBinary, FileManager.default.isExecutableFile(atPath: redis) {
            let path = "\(root)/redis.sock"
            let server = try ServerProcess(
                executable: redis,
                arguments: [
                    "--port", "0", "--unixsocket", path, "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--dir", root,
                ],
                socketPath: path, log: "\(root)/redis.log")
            redisServer = server
            try server.waitUntilConnectable(framing: .resp)
            let client = try SocketClient(path: path, framing: .resp)
            let value = String(repeating: "v", count: presentationBytes)
            try client.roundTrip(Self.resp(["SET", "presentation", value]))
            let get = Self.resp(["GET", "presentation"])
            try client.roundTrip(get)
            guard client.lastReply.count >= presentationBytes else { throw BenchError("redis GET returned \(client.lastReply.count) bytes") }
            servers.append(ReadServer(subject: "redis-server GET", process: server, path: path, framing: .resp, request: get))
        } else {
            skipped.append("redis-server: not installed (apt-get install redis-server)")
        }

        let echo = try startEchoServer(named: "echo")
        defer { echo.stop() }
        servers.append(ReadServer(
            subject: "echo server (floor)", process: echo, path: echo.socketPath, framing: .nulTerminated, request: request))

        let rounds = max(options.readRounds, 1)
        // Per server, its multiplexed rows then its thread-per-connection rows.
        var medians: [[Row]] = Array(repeating: [], count: servers.count)
        let measurements =
            options.readConnections.map { (n: $0, shape: ReadClientShape.multiplexed) }
            + options.threadedReadConnections.map { (n: $0, shape: ReadClientShape.threadPerConnection) }
        var threaded: [[Row]] = Array(repeating: [], count: servers.count)
        for (n, shape) in measurements {
            var samples: [[Row]] = Array(repeating: [], count: servers.count)
            for round in 0..<rounds {
                for index in ReadRounds.order(serverCount: servers.count, round: round) {
                    let server = servers[index]
                    log("reads: \(server.subject), \(n) connection(s), \(shape.rawValue), round \(round + 1) of \(rounds)")
                    samples[index].append(try measureRead(
                        server.subject, connections: n, shape: shape, server: server.process, path: server.path,
                        framing: server.framing, request: server.request))
                }
            }
            for index in servers.indices {
                guard var row = ReadRounds.median(samples[index], by: { $0.result.throughput }) else { continue }
                row.rounds = samples[index].map { ($0.result, $0.serverMicroseconds) }
                if shape == .multiplexed { medians[index].append(row) } else { threaded[index].append(row) }
            }
        }
        // Grouped by server, as the table reads; the shapes side by side.
        reads = servers.indices.flatMap { medians[$0] + threaded[$0] }
    }

    /// A RESP command.
    static func resp(_ words: [String]) -> [UInt8] {
        var text = "*\(words.count)\r\n"
        for word in words { text += "$\(word.utf8.count)\r\n\(word)\r\n" }
        return Array(text.utf8)
    }

    // MARK: Durable writes

    /// Each widget's stored generation (0 for none).
    private static func generations(of widgets: [String], socket: String) throws -> [Int] {
        let client = try SocketClient(path: socket, framing: .nulTerminated)
        return try widgets.map { widget in
            try client.roundTrip(VarlinkRequest.encode("io.widgetd.Provider.GetTimeline", ["widget": widget]))
            let reply = try JSONSerialization.jsonObject(with: Data(client.lastReply.dropLast())) as? [String: Any]
            if let error = reply?["error"] as? String {
                guard error == WidgetdErrorName.widgetNotFound.fullName else { throw BenchError("GetTimeline: \(error)") }
                return 0
            }
            guard let generation = (reply?["parameters"] as? [String: Any])?["generation"] as? Int else {
                throw BenchError("GetTimeline: no generation")
            }
            return generation
        }
    }

    /// A store the write rounds measure: its name and one closed-loop measurement at `n`
    /// connections.
    private struct WriteSubject {
        let subject: String
        let measure: (_ connections: Int) throws -> LoopResult
    }

    /// The write rows, sampled like the reads (`ReadRounds`): every store once per round,
    /// the rounds interleaved (each starting with another store), each store's median
    /// round reported. A disk stall during one store's only row decided the comparison
    /// before: the state directory's disk is shared with other writers.
    private func measureWrites() throws {
        let daemon = try BenchDaemon(root: "\(root)/writes", binary: options.widgetdBinary)
        try daemon.start()
        defer { daemon.stop() }
        let bytes = options.timelineBytes
        // What a stored timeline file weighs, once widgetd has written some: the peers
        // write as many bytes. widgetd is measured first in the first round.
        var bodyBytes: Int?
        var subjects = [widgetdWriteSubject("widgetd PutTimeline", daemon: daemon) {
            if bodyBytes == nil { bodyBytes = try self.storedBodyBytes(daemon: daemon) }
        }]
        // A glance widget's timeline (layout roles, actions): read in the same one pass.
        subjects.append(widgetdWriteSubject("widgetd PutTimeline, glance entries", daemon: daemon, shape: .glance) {})
        // The previous binary in the same rounds: an A/B of a write-path change.
        var baseline: BenchDaemon?
        defer { baseline?.stop() }
        if let binary = options.baselineWidgetdBinary {
            let other = try BenchDaemon(root: "\(root)/writes-baseline", binary: binary)
            baseline = other
            try other.start()
            subjects.append(widgetdWriteSubject("widgetd PutTimeline (baseline binary)", daemon: other) {})
            subjects.append(
                widgetdWriteSubject("widgetd PutTimeline, glance entries (baseline binary)", daemon: other, shape: .glance) {})
        }

        do {
            let library = try SQLCipher()
            let path = "\(root)/sqlcipher.db"
            subjects.append(WriteSubject(subject: "SQLCipher commit (WAL, synchronous=FULL)") { n in
                let size = bodyBytes ?? bytes
                _ = try SQLCipher.Writer(library: library, path: path, row: 0, bodyBytes: size)
                return try ClosedLoop.run(workers: n, duration: self.options.duration) { index in
                    let writer = try SQLCipher.Writer(library: library, path: path, row: Int64(index), bodyBytes: size)
                    return { try writer.commit() }
                }
            })
        } catch {
            skipped.append("SQLCipher: \(error)")
        }

        // The two floors a lone write stands on, measured in the same rounds: the
        // journal's (one record and its sync, in-process) and the transport's (the same
        // message sent to the echo server and back, through the same client loop).
        subjects.append(WriteSubject(subject: "pwrite+fdatasync, preallocated (journal floor)") { n in
            let size = bodyBytes ?? bytes
            let directory = self.root
            return try ClosedLoop.run(workers: n, duration: self.options.duration) { index in
                let append = try JournalAppend(path: "\(directory)/journal-floor-\(index)", bodyBytes: size)
                return { try append.commit() }
            }
        })
        let echo = try startEchoServer(named: "echo-writes")
        defer { echo.stop() }
        let echoPath = echo.socketPath
        subjects.append(WriteSubject(subject: "echo server, the PutTimeline message (transport floor)") { n in
            try MultiplexedLoop.run(connections: n, duration: self.options.duration) { index in
                .init(
                    client: try SocketClient(path: echoPath, framing: .nulTerminated),
                    request: VarlinkRequest.putTimeline("com.example.weather/writer-\(index)", bytes: bytes))
            }
        })

        let floorDirectory = "\(root)/floor"
        try FileManager.default.createDirectory(atPath: floorDirectory, withIntermediateDirectories: true)
        subjects.append(WriteSubject(subject: "write+fsync+rename+fsync(dir) (floor)") { n in
            let size = bodyBytes ?? bytes
            return try ClosedLoop.run(workers: n, duration: self.options.duration) { index in
                let replace = try DurableReplace(directory: floorDirectory, name: "f-\(index)", bodyBytes: size)
                return { try replace.commit() }
            }
        })

        let rounds = max(options.readRounds, 1)
        var medians = Array(repeating: [Row](), count: subjects.count)
        for n in options.writeConnections {
            var samples = Array(repeating: [LoopResult](), count: subjects.count)
            for round in 0..<rounds {
                for index in ReadRounds.order(serverCount: subjects.count, round: round) {
                    log("writes: \(subjects[index].subject), \(n) connection(s), round \(round + 1) of \(rounds)")
                    samples[index].append(try subjects[index].measure(n))
                }
            }
            for index in subjects.indices {
                guard let median = ReadRounds.median(samples[index], by: { $0.throughput }) else { continue }
                var row = Row(subject: subjects[index].subject, connections: n, result: median)
                row.rounds = samples[index].map { ($0, nil) }
                medians[index].append(row)
            }
        }
        // Grouped by store, as the table reads.
        writes = medians.flatMap { $0 }
    }

    /// PutTimeline from `n` connections to `daemon`, each its own widget, with entries
    /// of `shape`; `measured` runs after each measurement (the first one sizes the peers' rows).
    private func widgetdWriteSubject(
        _ subject: String, daemon: BenchDaemon, shape: VarlinkRequest.EntryShape = .plain, measured: @escaping () throws -> Void
    ) -> WriteSubject {
        let socket = daemon.socketPath
        let bytes = options.timelineBytes
        return WriteSubject(subject: subject) { n in
            let widgets = (0..<n).map { "com.example.weather/writer-\($0)" }
            let before = try Self.generations(of: widgets, socket: socket)
            // One epoll thread for every connection, as for the reads: a blocking thread
            // per connection cost the client more CPU than it leaves the daemon on 2 cores.
            let result = try MultiplexedLoop.run(connections: n, duration: self.options.duration) { index in
                .init(
                    client: try SocketClient(path: socket, framing: .nulTerminated),
                    request: VarlinkRequest.putTimeline(widgets[index], bytes: bytes, shape: shape))
            }
            // The loop does not read its replies: each write it counted must have been
            // stored, so the widgets' generations moved by exactly that many.
            let stored = zip(before, try Self.generations(of: widgets, socket: socket)).reduce(0) { $0 + $1.1 - $1.0 }
            guard stored == result.completed else {
                throw BenchError("\(subject): \(result.completed) replies but \(stored) writes stored")
            }
            try measured()
            return result
        }
    }

    /// The size of one stored timeline file, so peers write as many bytes. The daemon is
    /// stopped and started again first: an orderly stop folds the journal into the files.
    private func storedBodyBytes(daemon: BenchDaemon) throws -> Int {
        daemon.stop()
        try daemon.start()
        let directory = "\(root)/writes/state/timelines"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }
        guard let name = names.first,
            let size = try FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)")[.size] as? Int
        else { return options.timelineBytes }
        return size
    }

    // MARK: Growth

    private func measureGrowth() throws {
        let daemon = try BenchDaemon(root: "\(root)/growth", binary: options.widgetdBinary, extra: Self.growthQuotas)
        try daemon.start()
        let probes = (0..<5).map { "com.example.health/probe-\($0)" }
        do {
            let client = try daemon.client()
            try VarlinkRequest.call(client, "io.widgetd.Device.SetPasscode", ["new": "1234"])
            for probe in probes {
                try VarlinkRequest.check(client, VarlinkRequest.putTimeline(probe, bytes: options.timelineBytes), "PutTimeline")
            }
        }
        daemon.stop()
        var stored = 0
        for size in options.growthSizes {
            log("growth: filling to \(size) timelines")
            let fillStart = Clock.nanoseconds()
            try StoreFiller.fill(stateDirectory: daemon.stateDirectory, from: stored, to: size, bodyBytes: options.timelineBytes)
            let fillSeconds = Double(Clock.nanoseconds() - fillStart) / 1e9
            stored = max(stored, size)
            log("growth: measuring at \(size) timelines")
            growth.append(try measureGrowthRow(daemon, timelines: size, fillSeconds: fillSeconds, probes: probes))
        }
        if let root = options.growthStore {
            // Made by an earlier run of this benchmark (its probes and passcode included).
            let prefilled = try BenchDaemon(root: root, binary: options.widgetdBinary, extra: Self.growthQuotas)
            let files = try FileManager.default.contentsOfDirectory(atPath: "\(prefilled.stateDirectory)/timelines")
            let size = files.filter { $0.hasSuffix(".wtl") }.count - probes.count
            log("growth: measuring the store in \(root) (\(size) timelines)")
            growth.append(try measureGrowthRow(prefilled, timelines: size, fillSeconds: 0, probes: probes))
        }
    }

    /// Quotas above what the filled store holds (a quarter of it per provider), so that
    /// the write after a restart is accepted, not refused, at every size.
    static let growthQuotas = ["MaxWidgetsPerProvider=1000000", "MaxBytesPerProvider=1G"]

    /// One growth row: the daemon started on its store as it is.
    private func measureGrowthRow(_ daemon: BenchDaemon, timelines size: Int, fillSeconds: Double, probes: [String]) throws -> GrowthRow {
        // Three starts, the median kept: the first after a fill competes with the
        // fill's write-back for the disk.
        var starts: [Double] = []
        for _ in 0..<2 {
            starts.append(try daemon.start())
            daemon.stop()
        }
        starts.append(try daemon.start())
        let start = Self.median(starts)
        defer { daemon.stop() }
        // A host reading while the index fills in slices after READY=1: what each
        // slice (and the directory's reading) makes it wait: a class-A probe before the
        // unlock, so its placeholder presentation, from the cached path after the first.
        let host = try daemon.client()
        let read = VarlinkRequest.encode("io.widgetd.Host.GetPresentation", ["widget": probes[0], "surface": "homeScreen"])
        var during: [Double] = []
        for _ in 0..<300 { during.append(try timed { try VarlinkRequest.check(host, read, "GetPresentation") }) }
        during.sort()
        let indexingP99 = during[min(during.count - 1, Int(Double(during.count) * 0.99))]
        // Connected only now: a connection left idle for a minute is closed by the daemon.
        let indexer = try daemon.client()
        // Indexing runs in slices after READY=1; ReloadTimelines waits for it (for a
        // provider that has no widget, so nothing is announced and the reply is empty;
        // an unpaged ListWidgets of 100,000 widgets is over the connection's output
        // limit), so the figures after it are those of a daemon that is done starting.
        let listAll = try timed {
            try VarlinkRequest.call(indexer, "io.widgetd.Host.ReloadTimelines", ["provider": "org.example.nobody"])
        }
        // A new connection, as when ReloadTimelines held the loop for over a minute
        // (indexing a million timelines) and its connection was then closed as idle.
        let client = try daemon.client()
        var pages: [Double] = []
        var after: String?
        for _ in 0..<3 {
            var parameters: [String: Any] = ["limit": 100]
            if let after { parameters["after"] = after }
            var reply: [UInt8] = []
            pages.append(try timed { reply = try VarlinkRequest.call(client, "io.widgetd.Host.ListWidgets", parameters) })
            let object = try JSONSerialization.jsonObject(with: Data(reply.dropLast())) as? [String: Any]
            after = (object?["parameters"] as? [String: Any])?["next"] as? String
            if after == nil { break }
        }
        let unlock = VarlinkRequest.encode("io.widgetd.Device.Unlock", ["passcode": "1234"])
        let lock = VarlinkRequest.encode("io.widgetd.Device.Lock")
        var unlocks: [Double] = []
        var locks: [Double] = []
        var firstReads: [Double] = []
        for probe in probes {
            unlocks.append(try timed { try VarlinkRequest.check(client, unlock, "Unlock") })
            let read = VarlinkRequest.encode("io.widgetd.Host.GetPresentation", ["widget": probe, "surface": "homeScreen"])
            firstReads.append(try timed { try VarlinkRequest.check(client, read, "GetPresentation") })
            locks.append(try timed { try VarlinkRequest.check(client, lock, "Lock") })
        }
        try VarlinkRequest.check(client, unlock, "Unlock")
        let change = VarlinkRequest.encode("io.widgetd.Device.SetPasscode", ["current": "1234", "new": "1234"])
        var changes: [Double] = []
        for _ in 0..<3 { changes.append(try timed { try VarlinkRequest.check(client, change, "SetPasscode") }) }
        let rss = daemon.server?.residentKiB ?? 0
        // An orderly stop with every timeline indexed, a start, and a provider's write at
        // once: accepted when its quota can be judged (the whole store counted).
        daemon.stop()
        let restart = try daemon.start()
        let writer = try daemon.client()
        let write = try timed {
            try VarlinkRequest.check(
                writer, VarlinkRequest.putTimeline("com.example.clock/after-restart", bytes: options.timelineBytes), "PutTimeline")
        }
        // Then writes journaled and never folded, a crash (SIGKILL), a start (which
        // replays them) and a provider's write at once.
        for n in 0..<20 {
            try VarlinkRequest.check(
                writer, VarlinkRequest.putTimeline("com.example.clock/before-crash-\(n)", bytes: options.timelineBytes), "PutTimeline")
        }
        daemon.crash()
        let recovery = try daemon.start()
        let survivor = try daemon.client()
        let writeAfterCrash = try timed {
            try VarlinkRequest.check(
                survivor, VarlinkRequest.putTimeline("com.example.clock/after-crash", bytes: options.timelineBytes), "PutTimeline")
        }
        return GrowthRow(
            timelines: size, startSeconds: start, unlockMs: Self.median(unlocks), lockMs: Self.median(locks),
            passcodeChangeMs: Self.median(changes), firstReadMs: Self.median(firstReads), rssKiB: rss,
            fillSeconds: fillSeconds, listAllMs: listAll, indexingReadP99Ms: indexingP99, indexingReadMaxMs: during.last ?? 0,
            listPageMs: Self.median(pages), writeAfterRestartMs: restart * 1000 + write,
            writeAfterCrashMs: recovery * 1000 + writeAfterCrash)
    }

    private func timed(_ body: () throws -> Void) throws -> Double {
        let start = Clock.nanoseconds()
        try body()
        return Double(Clock.nanoseconds() - start) / 1e6
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
