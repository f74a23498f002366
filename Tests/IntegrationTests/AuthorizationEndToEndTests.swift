import Foundation
import Glibc
import Testing
import TestSupport

/// Who may do what (DESIGN §6), tried from a peer of another uid: the tests run as root,
/// so a child drops to `nobody` (or to a chosen uid/gid) with `setpriv` before it calls.
@Suite(.enabled(if: getuid() == 0, "needs root to act as another user"))
struct AuthorizationEndToEndTests {
    /// Runs `calls` (method, parameters) as `uid`/`gid` with `groups` and returns each
    /// reply's error name, or "ok".
    private func results(
        as uid: Int, gid: Int, groups: [Int] = [], socket: String, calls: [(String, [String: Any])]
    ) throws -> [String] {
        let script = """
            import json, socket, sys
            calls = json.loads(sys.argv[2])
            streams = {"io.widgetd.Device.Monitor", "io.widgetd.Host.Watch", "io.widgetd.Provider.WatchReloads"}
            out = []
            for method, params in calls:
                # A connection per call, so a stream's later replies cannot mix with the next answer.
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                buf = b""
                call = {"method": method, "parameters": params}
                if method in streams: call["more"] = True
                s.sendall(json.dumps(call).encode() + b"\\0")
                # An accepted stream may stay silent until it has news: that is not a denial.
                s.settimeout(2 if method in streams else 60)
                try:
                    while b"\\0" not in buf:
                        chunk = s.recv(65536)
                        if not chunk: raise SystemExit("closed")
                        buf += chunk
                except socket.timeout:
                    out.append("streaming")
                    s.close()
                    continue
                msg, _, buf = buf.partition(b"\\0")
                out.append(json.loads(msg).get("error", "ok"))
                s.close()
            print(json.dumps(out))
            """
        let groupArgument = groups.isEmpty ? ["--clear-groups"] : ["--groups", groups.map(String.init).joined(separator: ",")]
        let result = try ChildProcess.run("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)"] + groupArgument + [
            "/usr/bin/python3", "-c", script, socket,
            String(decoding: try JSONSerialization.data(withJSONObject: calls.map { [$0.0, $0.1] }), as: UTF8.self),
        ])
        return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String] ?? []
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

    /// Every method of every interface, with valid parameters, streams included.
    private static var everyMethodAndStream: [(String, [String: Any])] {
        everyMethod + [
            ("io.widgetd.Device.Monitor", [:]),
            ("io.widgetd.Provider.WatchReloads", [:]),
            ("io.widgetd.Host.Watch", ["widget": "com.example.weather/forecast", "surface": "homeScreen"]),
            ("org.varlink.service.GetInterfaceDescription", ["interface": "io.widgetd.Device"]),
        ]
    }

    /// DESIGN §6: the methods each role may call (besides `GetStatus` and
    /// `org.varlink.service`, which anyone may), and the peer that holds only that role.
    struct Role: Sendable {
        let name: String
        let uid: Int, gid: Int, groups: [Int]
        /// Method names, or prefixes ending in ".", the role may call.
        let methods: [String]
        func allowed(_ method: String) -> Bool {
            methods.contains { $0.hasSuffix(".") ? method.hasPrefix($0) : method == $0 }
        }
    }

    private static let roles = [
        Role(name: "unlock", uid: 65534, gid: 65534, groups: [4242], methods: ["io.widgetd.Device.Unlock", "io.widgetd.Device.Lock"]),
        Role(name: "host", uid: 65534, gid: 4343, groups: [], methods: ["io.widgetd.Host."]),
        Role(name: "provider", uid: 4444, gid: 4444, groups: [], methods: ["io.widgetd.Provider."]),
        Role(name: "anyone else", uid: 65534, gid: 65534, groups: [], methods: []),
    ]

    @Test(arguments: 0..<4)
    func everyMethodOutsideARoleIsDeniedAndLogged(role index: Int) throws {
        let role = Self.roles[index]
        let daemon = try DaemonProcess(access: ["UnlockGroup=4242", "HostGroup=4343"])
        try "[Provider]\nId=com.example.weather\nUser=4444\nDataProtection=none\n".write(
            to: daemon.root.appendingPathComponent("etc/providers.d/com.example.weather.conf"),
            atomically: true, encoding: .utf8)
        try daemon.start()
        let admin = try daemon.client()
        try admin.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast"))
        try admin.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        chmod(daemon.socketPath, 0o666)
        let calls = Self.everyMethodAndStream
        let results = try results(as: role.uid, gid: role.gid, groups: role.groups, socket: daemon.socketPath, calls: calls)
        #expect(results.count == calls.count)
        let log = daemon.log.split(separator: "\n")
        for (call, result) in zip(calls, results) {
            let open = call.0 == "io.widgetd.Device.GetStatus" || call.0.hasPrefix("org.varlink.service.")
            if open || role.allowed(call.0) {
                #expect(result != "io.widgetd.PermissionDenied", "\(role.name): \(call.0)")
            } else {
                #expect(result == "io.widgetd.PermissionDenied", "\(role.name): \(call.0)")
                #expect(log.contains { $0.contains("permission_denied") && $0.contains(call.0) && $0.contains("\(role.uid)") },
                        "\(role.name): the denial of \(call.0) is logged")
            }
        }
        // Nothing a denied call would have changed did change.
        let status = try admin.ok("io.widgetd.Device.GetStatus")
        #expect(status["passcodeSet"] as? Bool == true)
        #expect((status["settings"] as? [String: Any])?["lockScreenWidgetsAccess"] as? Bool == true)
        if !role.allowed("io.widgetd.Provider.DeleteTimeline") {
            #expect(try admin.call("io.widgetd.Provider.GetTimeline", ["widget": "com.example.weather/forecast"]).error == nil)
        }
    }

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
            ("io.widgetd.Provider.AppendEntries", ["widget": "com.example.mail/inbox", "entries": []]),
            ("io.widgetd.Provider.CloseTimeline", ["widget": "com.example.mail/inbox"]),
        ])
        #expect(provider == [
            "ok", "ok", "io.widgetd.PermissionDenied", "io.widgetd.PermissionDenied",
            "io.widgetd.PermissionDenied", "io.widgetd.PermissionDenied",
            "io.widgetd.PermissionDenied", "io.widgetd.PermissionDenied",
        ])
        // The other provider's timeline is untouched.
        let mail = try daemon.client().ok("io.widgetd.Provider.GetTimeline", ["widget": "com.example.mail/inbox"])
        #expect(mail["generation"] as? Int == 1)
    }
}
