import Foundation
import Testing
import Varlink
import WidgetdWire

/// Every io.widgetd error name is written once, in ``WidgetdErrorName``: the interface
/// files declare each name, the enum holds each exactly once, and no other Swift source
/// spells one out (the daemon, the client and the CLI name the case instead).
@Suite struct ErrorNameTests {
    /// The repository's root, found from this file's path.
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `error Name` the io.widgetd interface files declare, each once (an error
    /// several interfaces declare is one name on the wire: `io.widgetd.Name`).
    private static func declaredErrors() throws -> Set<String> {
        let directory = root.appendingPathComponent("interfaces")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("io.widgetd.") && $0.hasSuffix(".varlink") }
        #expect(files.count == WidgetdInterface.allCases.count)
        var names: Set<String> = []
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("error ") {
                names.insert(String(line.dropFirst("error ".count).prefix { $0.isLetter || $0.isNumber }))
            }
        }
        return names
    }

    @Test func everyDeclaredErrorIsExactlyOneCaseAndEveryCaseIsDeclared() throws {
        let declared = try Self.declaredErrors()
        #expect(!declared.isEmpty)
        for name in declared {
            #expect(WidgetdErrorName.allCases.filter { $0.member == name }.count == 1, "\(name)")
        }
        for error in WidgetdErrorName.allCases {
            #expect(declared.contains(error.member), "\(error.member) is declared by no interface file")
            #expect(error.fullName == "io.widgetd.\(error.member)")
            #expect(WidgetdErrorName(fullName: error.fullName) == error)
        }
    }

    /// The Swift sources that spell `"io.widgetd.<Name>"` for a declared error name.
    private static func sourcesSpelling(_ names: Set<String>) throws -> [String: [String]] {
        let sources = root.appendingPathComponent("Sources")
        guard let walk = FileManager.default.enumerator(atPath: sources.path) else { return [:] }
        var found: [String: [String]] = [:]
        for case let path as String in walk where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for name in names where text.contains("\"io.widgetd.\(name)\"") {
                found[name, default: []].append("Sources/\(path)")
            }
        }
        return found
    }

    @Test func noSourceButTheEnumSpellsAnErrorName() throws {
        let spelt = try Self.sourcesSpelling(Self.declaredErrors())
        for (name, files) in spelt {
            #expect(files == ["Sources/WidgetdWire/WidgetdErrorName.swift"], "\(name) is spelt in \(files)")
        }
        #expect(spelt.count == WidgetdErrorName.allCases.count)
    }

    @Test func anErrorBuiltFromItsNameCarriesTheFullName() {
        #expect(VarlinkError(.wiped).name == "io.widgetd.Wiped")
        #expect(VarlinkError(.wiped).encodedParameters == Array("{}".utf8))
        #expect(VarlinkError(.tooLarge, parameters: ["limit": 3]).name == WidgetdErrorName.tooLarge.fullName)
    }
}
