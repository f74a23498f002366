import Testing
import WidgetdWire

@Suite struct SocketLocationTests {
    static let cases: [(String?, [String: String], UInt32, String)] = [
        ("/x.sock", ["WIDGETD_SOCKET": "/y.sock"], 1000, "/x.sock"),
        (nil, ["WIDGETD_SOCKET": "/y.sock", "XDG_RUNTIME_DIR": "/run/user/1000"], 1000, "/y.sock"),
        (nil, ["XDG_RUNTIME_DIR": "/run/user/1000"], 0, "/run/widgetd/widgetd.sock"),
        (nil, ["XDG_RUNTIME_DIR": "/run/user/1000"], 1000, "/run/user/1000/widgetd/widgetd.sock"),
        (nil, [:], 1001, "/run/user/1001/widgetd/widgetd.sock"),
        (nil, ["WIDGETD_SOCKET": ""], 0, "/run/widgetd/widgetd.sock"),
        // A relative XDG_RUNTIME_DIR is ignored, as the daemon ignores it: both meet in /run/user/UID.
        (nil, ["XDG_RUNTIME_DIR": "run/user/1000"], 1000, "/run/user/1000/widgetd/widgetd.sock"),
    ]

    @Test(arguments: cases)
    func socketComesFromOptionThenEnvironmentThenDefaults(
        option: String?, environment: [String: String], userID: UInt32, path: String
    ) {
        #expect(SocketLocation.resolve(option: option, environment: environment, userID: userID) == path)
    }

    @Test func theDaemonsDefaultIgnoresTheClientsVariable() {
        let environment = ["WIDGETD_SOCKET": "/y.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(SocketLocation.defaultPath(environment: environment, userID: 1000) == "/run/user/1000/widgetd/widgetd.sock")
        #expect(SocketLocation.defaultPath(environment: environment, userID: 0) == SocketLocation.systemPath)
    }

    @Test func onlyAUserWithoutARuntimeDirectoryIsGuessed() {
        #expect(SocketLocation.guessedRuntimeDirectory(option: nil, environment: [:], userID: 1000))
        #expect(SocketLocation.guessedRuntimeDirectory(option: nil, environment: ["XDG_RUNTIME_DIR": "run"], userID: 1000))
        #expect(!SocketLocation.guessedRuntimeDirectory(option: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000))
        #expect(!SocketLocation.guessedRuntimeDirectory(option: nil, environment: [:], userID: 0))
        #expect(!SocketLocation.guessedRuntimeDirectory(option: "/s", environment: [:], userID: 1000))
        #expect(!SocketLocation.guessedRuntimeDirectory(option: nil, environment: ["WIDGETD_SOCKET": "/s"], userID: 1000))
    }
}
