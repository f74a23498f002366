import Foundation
import Testing
import Varlink
import WidgetdWire

/// `man/io.widgetd.7` describes every method and error the daemon serves, so the
/// manual cannot fall behind the interface definitions.
@Suite struct InterfaceManualTests {
    private static let manual: String = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("man/io.widgetd.7")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The names declared with `keyword` (`method` or `error`) in a definition.
    private static func names(_ keyword: String, in definition: InterfaceDefinition) -> [String] {
        definition.text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix(keyword + " ") else { return nil }
            let rest = line.dropFirst(keyword.count + 1)
            return String(rest.prefix { $0.isLetter || $0.isNumber })
        }
    }

    private static let widgetdInterfaces = InterfaceDefinition.all.filter { $0.name.hasPrefix("io.widgetd.") }

    @Test(arguments: widgetdInterfaces)
    func manualNamesEveryMethodAndError(definition: InterfaceDefinition) {
        #expect(Self.manual.contains(".SH \(definition.name)"), "no section for \(definition.name)")
        for method in Self.names("method", in: definition) {
            #expect(Self.manual.contains("\(method)("),
                    "io.widgetd.7 does not describe \(definition.name).\(method)")
        }
        for error in Self.names("error", in: definition) {
            #expect(Self.manual.contains(".BR \(error) "),
                    "io.widgetd.7 does not list the error \(error)")
        }
    }
}
