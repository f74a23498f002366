import Foundation
import Glibc
import Testing
import TestSupport

/// Promise 6 (SECURITY.md): nothing secret stays in memory. After a lock and its grace
/// period, neither class-A content nor the passcode is anywhere in the daemon's memory;
/// a process of the same uid cannot read that memory; a crash writes no core file.
@Suite(.enabled(if: getuid() == 0, "reading another process's memory and changing uid need root"))
struct MemoryHygieneTests {
    /// Where a needle was found: the mapping's line from `/proc/PID/maps` and the address.
    struct Finding: CustomStringConvertible {
        let needle: String
        let mapping: String
        let address: UInt
        /// The bytes around it, printable ASCII shown, to tell which buffer holds it.
        let context: String
        var description: String { "\(needle) at 0x\(String(address, radix: 16)) in \(mapping): \(context)" }
    }

    /// Searches every readable mapping of `pid` for each needle, in UTF-8 and UTF-16LE.
    static func search(pid: Int32, for needles: [String]) throws -> [Finding] {
        let patterns: [(String, [UInt8])] = needles.flatMap { needle in
            [("\(needle) (UTF-8)", Array(needle.utf8)),
             ("\(needle) (UTF-16LE)", needle.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })]
        }
        let overlap = patterns.map(\.1.count).max()! - 1
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let mem = open("/proc/\(pid)/mem", O_RDONLY)
        guard mem >= 0 else { throw DaemonProcess.Failure(description: "open /proc/\(pid)/mem: errno \(errno)") }
        defer { close(mem) }
        var findings: [Finding] = []
        var chunk = [UInt8](repeating: 0, count: 4 << 20)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("r"), !line.hasSuffix("[vvar]"), !line.hasSuffix("[vsyscall]") else {
                continue
            }
            let range = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard range.count == 2 else { continue }
            var address = range[0]
            while address < range[1] {
                let want = Int(min(UInt(chunk.count), range[1] - address))
                let got = chunk.withUnsafeMutableBytes { pread(mem, $0.baseAddress, want, off_t(Int64(bitPattern: UInt64(address)))) }
                guard got > 0 else { break }
                chunk.withUnsafeBytes { raw in
                    for (name, pattern) in patterns {
                        var offset = 0
                        while offset + pattern.count <= got {
                            guard let at = Self.find(pattern, in: raw, from: offset, count: got) else { break }
                            let around = raw[max(0, at - 160)..<min(got, at + pattern.count + 160)]
                            let context = String(around.map { (32..<127).contains($0) ? Character(UnicodeScalar($0)) : "." })
                            findings.append(Finding(
                                needle: name, mapping: String(line), address: address + UInt(at), context: context))
                            offset = at + 1
                        }
                    }
                }
                // Step back a little so a needle across two chunks is not missed.
                address += UInt(got == want && address + UInt(got) < range[1] ? got - overlap : got)
            }
        }
        return findings
    }

    /// The offset of `pattern` in `raw[from..<count]` (memchr for the first byte, then memcmp).
    static func find(_ pattern: [UInt8], in raw: UnsafeRawBufferPointer, from: Int, count: Int) -> Int? {
        var offset = from
        let base = raw.baseAddress!
        return pattern.withUnsafeBytes { p -> Int? in
            while offset + pattern.count <= count {
                guard let hit = memchr(base + offset, Int32(pattern[0]), count - offset - pattern.count + 1) else { return nil }
                let at = UnsafeRawPointer(hit) - base
                if memcmp(base + at, p.baseAddress!, pattern.count) == 0 { return at }
                offset = at + 1
            }
            return nil
        }
    }

    @Test func afterLockAndGraceNoMarkerNorPasscodeRemainsInMemory() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=1"])
        try daemon.start()
        let pid = try #require(daemon.process?.processIdentifier)
        let tag = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
        let marker = "MARK\(tag)ER"
        let passcode = "PASS\(tag.reversed())CODE"
        // A sensitive action's title is content too (DESIGN §13).
        let title = "TITLE\(tag)ACT"
        let widget = "com.example.health/rings"
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": passcode])
        try client.ok("io.widgetd.Device.Lock")
        try client.ok("io.widgetd.Device.Unlock", ["passcode": passcode])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(widget, secret: marker))
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(widget + "#2", secret: marker))
        // Read it back every way it can be read while unlocked.
        for surface in ["homeScreen", "lockScreen", "alwaysOn"] {
            let shown = try client.ok("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": surface])
            #expect(Fixtures.field(shown, "balance")["value"] as? String == marker)
        }
        let watcher = try daemon.client()
        try watcher.send("io.widgetd.Host.Watch", ["widget": widget, "surface": "homeScreen"], more: true)
        #expect(Fixtures.field(try watcher.receive().parameters, "balance")["value"] as? String == marker)
        for _ in 0..<3 { try client.ok("io.widgetd.Provider.GetTimeline", ["widget": widget]) }
        var acted = Fixtures.putParameters(widget + "#act", secret: marker)
        acted["entries"] = (acted["entries"] as? [[String: Any]] ?? []).map { entry in
            var entry = entry
            entry["actions"] = [["id": "reply", "title": title, "kind": "button", "privacy": "sensitive", "authentication": "alwaysAllowed"]]
            return entry
        }
        try client.ok("io.widgetd.Provider.PutTimeline", acted)
        let provider = try daemon.client()
        _ = try provider.ok("io.widgetd.Device.GetStatus")
        try provider.send("io.widgetd.Provider.WatchActions", more: true)
        let withAction = try client.ok("io.widgetd.Host.GetPresentation", ["widget": widget + "#act", "surface": "homeScreen"])
        #expect((Fixtures.presentation(withAction)["actions"] as? [[String: Any]])?.first?["title"] as? String == title)
        #expect(try client.ok(
            "io.widgetd.Host.PerformAction", ["widget": widget + "#act", "surface": "homeScreen", "action": "reply"]
        )["outcome"] as? String == "delivered")
        #expect(try provider.receive().parameters["action"] as? String == "reply")
        try client.ok("io.widgetd.Provider.AppendEntries", [
            "widget": widget, "entries": [Fixtures.entry(at: Date().addingTimeInterval(7200), secret: marker)],
        ])
        // The marker is in memory now (the search works).
        #expect(try Self.search(pid: pid, for: [marker]).isEmpty == false)
        #expect(try Self.search(pid: pid, for: [title]).isEmpty == false)

        try client.ok("io.widgetd.Device.Lock")
        // The watcher gets the placeholder pushed at once.
        #expect(Fixtures.mode(try watcher.receive().parameters) == "placeholder")
        // Wait for the purge: GetStatus reports class A's key gone after the grace period.
        var purged = false
        for _ in 0..<300 where !purged {
            let classes = try client.ok("io.widgetd.Device.GetStatus")["classes"] as? [[String: Any]] ?? []
            purged = classes.contains { $0["class"] as? String == "complete" && $0["keyAvailable"] as? Bool == false }
            if !purged { usleep(100_000) }
        }
        try #require(purged, "class A was not purged within 30 s")
        // One more round trip, so the event loop has finished whatever the purge started.
        try client.ok("io.widgetd.Device.GetStatus")

        let findings = try Self.search(pid: pid, for: [marker, passcode, title])
        #expect(findings.isEmpty, "secrets left in memory:\n\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test func aProcessOfTheSameUIDCannotReadTheDaemonsMemory() throws {
        let daemon = try DaemonProcess()
        try daemon.start(user: (65534, 65534))
        let pid = try #require(daemon.process?.processIdentifier)
        // A control process of the same uid, dumpable as processes are by default.
        let control = try ChildProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sleep", "60"])
        defer { kill(control.processIdentifier, SIGKILL); control.waitUntilExit() }
        let probe = """
            import sys
            for pid in sys.argv[1:]:
                for name in ("maps", "mem"):
                    try:
                        open(f"/proc/{pid}/{name}", "rb").close()
                        print(f"{pid} {name} open")
                    except PermissionError:
                        print(f"{pid} {name} denied")
            """
        let text = try ChildProcess.run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", probe,
            String(pid), String(control.processIdentifier),
        ]).output
        let lines = Set(text.split(separator: "\n").map(String.init))
        // The control proves the probe can read a same-uid process's memory at all.
        #expect(lines.contains("\(control.processIdentifier) maps open"), "\(text)")
        #expect(lines.contains("\(control.processIdentifier) mem open"), "\(text)")
        #expect(lines.contains("\(pid) maps denied"), "\(text)")
        #expect(lines.contains("\(pid) mem denied"), "\(text)")
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
    }

    @Test(arguments: [SIGSEGV, SIGABRT])
    func aCrashWritesNoCoreFile(signal: Int32) throws {
        let pattern = (try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? ""
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("widgetd-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A control in the same directory with cores allowed: does this machine write them here?
        let control = try ChildProcess("/usr/bin/python3", ["-c", """
            import os, resource, signal
            resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.kill(os.getpid(), \(signal))
            """], directory: directory.path)
        control.waitUntilExit()
        let controlWroteCore = try !FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(file))
        }

        let daemon = try DaemonProcess()
        // Swift's backtracer would catch the signal and, the signal being sent rather
        // than raised by a fault, let the daemon run on after printing a backtrace.
        try daemon.start(environment: ["SWIFT_BACKTRACE": "enable=no"], workingDirectory: directory)
        let process = try #require(daemon.process)
        let limits = try String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
        #expect(core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(core)")
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        try #require(!process.isRunning, "signal \(signal) did not end the daemon")
        #expect(process.terminatedBySignal)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left.isEmpty, "core written: \(left) (core_pattern \(pattern))")
        if pattern.hasPrefix("core") { #expect(controlWroteCore, "the control proves cores land in the working directory") }
    }
}
