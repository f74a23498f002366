import Testing
@testable import WidgetControl

@Suite struct SocketLocationTests {
    static let cases: [(String?, [String: String], UInt32, String)] = [
        ("/x.sock", ["WIDGETD_SOCKET": "/y.sock"], 1000, "/x.sock"),
        (nil, ["WIDGETD_SOCKET": "/y.sock", "XDG_RUNTIME_DIR": "/run/user/1000"], 1000, "/y.sock"),
        (nil, ["XDG_RUNTIME_DIR": "/run/user/1000"], 0, "/run/widgetd/widgetd.sock"),
        (nil, ["XDG_RUNTIME_DIR": "/run/user/1000"], 1000, "/run/user/1000/widgetd/widgetd.sock"),
        (nil, [:], 1001, "/run/user/1001/widgetd/widgetd.sock"),
        (nil, ["WIDGETD_SOCKET": ""], 0, "/run/widgetd/widgetd.sock"),
    ]

    @Test(arguments: cases)
    func socketComesFromOptionThenEnvironmentThenDefaults(
        option: String?, environment: [String: String], userID: UInt32, path: String
    ) {
        #expect(SocketLocation.resolve(option: option, environment: environment, userID: userID) == path)
    }
}
