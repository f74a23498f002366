import Foundation
import Glibc
import Testing
import TestSupport

/// DESIGN §6, sandboxed apps: a peer in a sandbox of Flatpak's shape (bubblewrap with a
/// read-only `/.flatpak-info`; NOTES, "A sandboxed app") is the provider registered with
/// its `App=` and nothing more, whatever its uid: here root's, which outside a sandbox
/// is an administrator.
@Suite(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap"), "needs root and bwrap"))
struct SandboxedAppEndToEndTests {
    /// Runs `calls` (method, parameters) from python in a sandbox whose `/.flatpak-info`
    /// names `appID`, a connection per call, and returns each reply's error name or "ok".
    /// With `uid`, python runs as that user (and gid), through `setpriv`; the sandbox then
    /// needs a user namespace of its own, as an ordinary user's bwrap does. With no
    /// `appID`, it runs outside any sandbox.
    private func results(
        app appID: String?, as uid: UInt32? = nil, daemon: DaemonProcess, calls: [(String, [String: Any])]
    ) throws -> [String] {
        let script = """
            import json, socket, sys
            out = []
            for method, params in json.loads(sys.argv[2]):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                s.sendall(json.dumps({"method": method, "parameters": params}).encode() + b"\\0")
                buf = b""
                while b"\\0" not in buf:
                    chunk = s.recv(65536)
                    if not chunk: raise SystemExit("closed")
                    buf += chunk
                out.append(json.loads(buf.partition(b"\\0")[0]).get("error", "ok"))
                s.close()
            print(json.dumps(out))
            """
        var command = ["/usr/bin/python3", "-c", script, daemon.socketPath,
            String(decoding: try JSONSerialization.data(withJSONObject: calls.map { [$0.0, $0.1] }), as: UTF8.self)]
        if let appID {
            let info = daemon.root.appendingPathComponent("flatpak-info-\(appID)").path
            try "[Application]\nname=\(appID)\nruntime=runtime/org.example.Platform/x86_64/1\n".write(
                toFile: info, atomically: true, encoding: .utf8)
            chmod(info, 0o644)
            let run = daemon.root.appendingPathComponent("run").path
            command = ["/usr/bin/bwrap"] + (uid == nil ? [] : ["--unshare-user"]) + [
                "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                "--symlink", "usr/bin", "/bin", "--ro-bind", info, "/.flatpak-info", "--proc", "/proc", "--dev", "/dev",
                "--bind", run, run, "--die-with-parent",
            ] + command
        }
        if let uid { command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command }
        let result = try ChildProcess.run(command[0], Array(command.dropFirst()))
        #expect(result.status == 0, "\(result.error)")
        return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String] ?? []
    }

    /// A daemon whose weather provider is the sandboxed app `com.example.Weather`'s
    /// (`App=` alone, as on a per-user instance); the other example providers are root's.
    private func daemonWithWeatherApp() throws -> DaemonProcess {
        let daemon = try DaemonProcess()
        try "[Provider]\nId=com.example.weather\nApp=com.example.Weather\nDataProtection=none\n".write(
            to: daemon.root.appendingPathComponent("etc/providers.d/com.example.weather.conf"),
            atomically: true, encoding: .utf8)
        try daemon.start()
        return daemon
    }

    @Test func aSandboxedAppReachesItsOwnWidgetsAndNothingElse() throws {
        let daemon = try daemonWithWeatherApp()
        let owner = try daemon.client()
        try owner.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.clock/world"))
        try owner.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        let calls: [(String, [String: Any], String)] = [
            ("io.widgetd.Device.GetStatus", [:], "ok"),
            ("org.varlink.service.GetInfo", [:], "ok"),
            // Its own provider's widgets.
            ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast"), "ok"),
            ("io.widgetd.Provider.GetTimeline", ["widget": "com.example.weather/forecast"], "ok"),
            ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/spare"), "ok"),
            ("io.widgetd.Provider.DeleteTimeline", ["widget": "com.example.weather/spare"], "ok"),
            // Another provider's, though root (its uid) is that provider's User=.
            ("io.widgetd.Provider.GetTimeline", ["widget": "com.example.clock/world"], "io.widgetd.PermissionDenied"),
            ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.clock/world"), "io.widgetd.PermissionDenied"),
            ("io.widgetd.Provider.DeleteTimeline", ["widget": "com.example.clock/world"], "io.widgetd.PermissionDenied"),
            // A host's, the unlock peer's, the administrator's.
            ("io.widgetd.Host.ListWidgets", [:], "io.widgetd.PermissionDenied"),
            ("io.widgetd.Host.GetPresentation", ["widget": "com.example.weather/forecast", "surface": "homeScreen"],
             "io.widgetd.PermissionDenied"),
            ("io.widgetd.Device.Lock", [:], "io.widgetd.PermissionDenied"),
            ("io.widgetd.Device.Unlock", ["passcode": "1234"], "io.widgetd.PermissionDenied"),
            ("io.widgetd.Device.SetPasscode", ["current": "1234"], "io.widgetd.PermissionDenied"),
            ("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false], "io.widgetd.PermissionDenied"),
            ("io.widgetd.Device.Wipe", ["confirm": "WIPE"], "io.widgetd.PermissionDenied"),
        ]
        let results = try results(app: "com.example.Weather", daemon: daemon, calls: calls.map { ($0.0, $0.1) })
        #expect(results == calls.map(\.2))
        for (call, result) in zip(calls, results) where result != call.2 { Issue.record("\(call.0): \(result)") }
        // The denials name the app, and nothing they would have done was done.
        #expect(daemon.log.contains("flatpak:com.example.Weather"))
        let status = try owner.ok("io.widgetd.Device.GetStatus")
        #expect(status["passcodeSet"] as? Bool == true)
        #expect(status["state"] as? String == "unlocked")
        #expect((status["settings"] as? [String: Any])?["lockScreenWidgetsAccess"] as? Bool == true)
        try owner.ok("io.widgetd.Provider.GetTimeline", ["widget": "com.example.clock/world"])
        try owner.ok("io.widgetd.Provider.GetTimeline", ["widget": "com.example.weather/forecast"])
    }

    /// A per-user instance's shape: the daemon runs as an ordinary user, and so do its
    /// owner's programs and the app (whose bwrap then makes a user namespace). The
    /// owner outside a sandbox is the owner; the app, of the same uid, is its provider.
    @Test func onAPerUserInstanceTheOwnerIsTheOwnerAndItsAppIsConfined() throws {
        let owner: UInt32 = 65534
        let daemon = try DaemonProcess()
        try "[Provider]\nId=com.example.weather\nApp=com.example.Weather\nDataProtection=none\n".write(
            to: daemon.root.appendingPathComponent("etc/providers.d/com.example.weather.conf"),
            atomically: true, encoding: .utf8)
        try daemon.start(user: (owner, owner))
        let calls: [(String, [String: Any])] = [
            ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast")),
            ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.clock/world")),
            ("io.widgetd.Host.ListWidgets", [:]),
            ("io.widgetd.Device.Lock", [:]),
        ]
        let app = try results(app: "com.example.Weather", as: owner, daemon: daemon, calls: calls)
        #expect(app == ["ok"] + Array(repeating: "io.widgetd.PermissionDenied", count: 3))
        #expect(daemon.log.contains("flatpak:com.example.Weather"))
        // The same uid outside a sandbox: the owner (the daemon's own uid), everything.
        #expect(try results(app: nil, as: owner, daemon: daemon, calls: calls) == ["ok", "ok", "ok", "ok"])
    }

    @Test func aSandboxedAppWithoutAProviderMayOnlyAskForStatusAndInfo() throws {
        let daemon = try daemonWithWeatherApp()
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast"))
        let calls: [(String, [String: Any])] = [
            ("io.widgetd.Device.GetStatus", [:]),
            ("org.varlink.service.GetInfo", [:]),
            ("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast")),
            ("io.widgetd.Provider.GetTimeline", ["widget": "com.example.weather/forecast"]),
            ("io.widgetd.Host.ListWidgets", [:]),
            ("io.widgetd.Device.Lock", [:]),
            ("io.widgetd.Device.Wipe", ["confirm": "WIPE"]),
        ]
        let results = try results(app: "com.example.Game", daemon: daemon, calls: calls)
        #expect(results == ["ok", "ok"] + Array(repeating: "io.widgetd.PermissionDenied", count: 5))
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
    }
}
