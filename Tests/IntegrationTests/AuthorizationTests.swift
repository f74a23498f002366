import Foundation
import Glibc
import Testing

/// Who may do what (DESIGN §6), tried from a peer of another uid: the tests run as root,
/// so a child drops to `nobody` (or to a chosen uid/gid) with `setpriv` before it calls.
@Suite(.enabled(if: getuid() == 0, "needs root to act as another user"))
struct AuthorizationTests {
    /// Runs `calls` (method, parameters) as `uid`/`gid` with `groups` and returns each
    /// reply's error name, or "ok".
    private func results(
        as uid: Int, gid: Int, groups: [Int] = [], socket: String, calls: [(String, [String: Any])]
    ) throws -> [String] {
        let script = """
            import json, socket, sys
            calls = json.loads(sys.argv[2])
            out = []
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            buf = b""
            for method, params in calls:
                s.sendall(json.dumps({"method": method, "parameters": params}).encode() + b"\\0")
                while b"\\0" not in buf:
                    chunk = s.recv(65536)
                    if not chunk: raise SystemExit("closed")
                    buf += chunk
                msg, _, buf = buf.partition(b"\\0")
                out.append(json.loads(msg).get("error", "ok"))
            print(json.dumps(out))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let groupArgument = groups.isEmpty ? ["--clear-groups"] : ["--groups", groups.map(String.init).joined(separator: ",")]
        process.arguments = ["--reuid=\(uid)", "--regid=\(gid)"] + groupArgument + [
            "/usr/bin/python3", "-c", script, socket,
            String(decoding: try JSONSerialization.data(withJSONObject: calls.map { [$0.0, $0.1] }), as: UTF8.self),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONSerialization.jsonObject(with: data) as? [String] ?? []
    }

    private static var everyMethod: [(String, [String: Any])] { [
        ("io.widgetd.Device.GetStatus", [:]),
        ("io.widgetd.Device.Unlock", ["passcode": "1234"]),
        ("io.widgetd.Device.Lock", [:]),
        ("io.widgetd.Device.SetPasscode", ["new": "0000"]),
        ("io.widgetd.Device.Wipe", ["confirm": "WIPE"]),
        ("io.widgetd.Device.GetSettings", [:]),
        ("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false]),
        ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast")),
        ("io.widgetd.Provider.GetTimeline", ["widget": "com.example.weather/forecast"]),
        ("io.widgetd.Provider.AppendEntries", ["widget": "com.example.weather/forecast", "entries": []]),
        ("io.widgetd.Provider.CloseTimeline", ["widget": "com.example.weather/forecast"]),
        ("io.widgetd.Provider.DeleteTimeline", ["widget": "com.example.weather/forecast"]),
        ("io.widgetd.Host.ListWidgets", [:]),
        ("io.widgetd.Host.GetPresentation", ["widget": "com.example.weather/forecast", "surface": "homeScreen"]),
        ("io.widgetd.Host.ReloadTimelines", [:]),
        ("org.varlink.service.GetInfo", [:]),
    ] }

    @Test func aStrangerMayOnlyAskForStatusAndInfo() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        chmod(daemon.socketPath, 0o666)
        let results = try results(as: 65534, gid: 65534, socket: daemon.socketPath, calls: Self.everyMethod)
        let allowed = Set(["io.widgetd.Device.GetStatus", "org.varlink.service.GetInfo"])
        #expect(results.count == Self.everyMethod.count)
        for (call, result) in zip(Self.everyMethod, results) {
            #expect(result == (allowed.contains(call.0) ? "ok" : "io.widgetd.PermissionDenied"), "\(call.0)")
        }
        #expect(daemon.log.contains("permission_denied"))
        #expect(daemon.log.contains("65534"))
        // Nothing changed: still locked-capable with the same passcode, no settings change.
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "unlocked")
        #expect((status["settings"] as? [String: Any])?["lockScreenWidgetsAccess"] as? Bool == true)
    }

    @Test func rolesFollowTheAccessGroups() throws {
        let daemon = try DaemonProcess(access: ["UnlockGroup=4242", "HostGroup=4343"])
        try daemon.start()
        let admin = try daemon.client()
        try admin.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try admin.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast"))
        try admin.ok("io.widgetd.Device.Lock")
        chmod(daemon.socketPath, 0o666)
        let unlocker = try results(as: 65534, gid: 65534, groups: [4242], socket: daemon.socketPath, calls: [
            ("io.widgetd.Device.Unlock", ["passcode": "1234"]),
            ("io.widgetd.Device.Lock", [:]),
            ("io.widgetd.Host.ListWidgets", [:]),
        ])
        #expect(unlocker == ["ok", "ok", "io.widgetd.PermissionDenied"])
        let host = try results(as: 65534, gid: 4343, socket: daemon.socketPath, calls: [
            ("io.widgetd.Host.ListWidgets", [:]),
            ("io.widgetd.Host.GetPresentation", ["widget": "com.example.weather/forecast", "surface": "homeScreen"]),
            ("io.widgetd.Device.Unlock", ["passcode": "1234"]),
            ("io.widgetd.Provider.GetTimeline", ["widget": "com.example.weather/forecast"]),
        ])
        #expect(host == ["ok", "ok", "io.widgetd.PermissionDenied", "io.widgetd.PermissionDenied"])
    }

    @Test func aProviderTouchesOnlyItsOwnWidgets() throws {
        let daemon = try DaemonProcess(providers: [
            ("com.example.weather", "none"), ("com.example.mail", "none"),
        ])
        // Give com.example.weather to uid 4444 instead of root.
        try "[Provider]\nId=com.example.weather\nUser=4444\nDataProtection=none\n".write(
            to: daemon.root.appendingPathComponent("etc/providers.d/com.example.weather.conf"),
            atomically: true, encoding: .utf8)
        try daemon.start()
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.mail/inbox"))
        chmod(daemon.socketPath, 0o666)
        let provider = try results(as: 4444, gid: 4444, socket: daemon.socketPath, calls: [
            ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast")),
            ("io.widgetd.Provider.GetTimeline", ["widget": "com.example.weather/forecast"]),
            ("io.widgetd.Provider.GetTimeline", ["widget": "com.example.mail/inbox"]),
            ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.mail/inbox")),
            ("io.widgetd.Provider.DeleteTimeline", ["widget": "com.example.mail/inbox"]),
            ("io.widgetd.Host.ListWidgets", [:]),
        ])
        #expect(provider == [
            "ok", "ok", "io.widgetd.PermissionDenied", "io.widgetd.PermissionDenied",
            "io.widgetd.PermissionDenied", "io.widgetd.PermissionDenied",
        ])
    }
}
