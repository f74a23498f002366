import Foundation
import Testing

@testable import WidgetdPOSIX

/// `PathComponents` stands in for `NSString`'s path methods (full Foundation, which the
/// daemon no longer links): it must give what they gave, on the paths the daemon forms.
@Suite struct PathComponentsTests {
    static let paths = [
        "/etc/widgetd/widgetd.conf", "/etc/widgetd/", "/etc//widgetd", "/etc", "/",
        "widgetd.conf", "relative/dir/file", "", "/run/user/1000/widgetd/socket",
    ]

    @Test(arguments: paths)
    func parentIsWhatDeletingLastPathComponentGave(_ path: String) {
        #expect(PathComponents.parent(of: path) == (path as NSString).deletingLastPathComponent)
    }

    @Test(arguments: ["/etc/widgetd", "/etc/widgetd/", "/", "relative", ""])
    func appendingIsWhatAppendingPathComponentGave(_ directory: String) {
        #expect(
            PathComponents.appending("providers.d", to: directory)
                == (directory as NSString).appendingPathComponent("providers.d"))
    }
}
