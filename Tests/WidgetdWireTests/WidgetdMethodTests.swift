import Testing
import Varlink
import WidgetdWire

/// The method and error enums name exactly what the interface definitions declare, so
/// that a method added to an IDL without a case (or a case without a method) fails here.
@Suite struct WidgetdMethodTests {
    /// Every `interface.Method` the io.widgetd definitions declare.
    private static var declaredMethods: Set<String> {
        Set(WidgetdInterface.allCases.flatMap { interface in
            interface.definition.methods.map { "\(interface.name).\($0)" }
        })
    }

    @Test func methodEnumCoversEveryDeclaredMethodAndNothingElse() {
        #expect(Set(WidgetdMethod.allCases.map(\.fullName)) == Self.declaredMethods)
    }

    @Test(arguments: WidgetdMethod.allCases)
    func methodBelongsToTheInterfaceThatDeclaresIt(method: WidgetdMethod) {
        #expect(method.fullName == "\(method.interface.name).\(method.member)")
        #expect(method.interface.definition.methods.contains(method.member))
        #expect(WidgetdMethod(fullName: method.fullName) == method)
    }

    @Test func streamingMethodsAreTheOnesThatSayCallWithMore() {
        let documented = Set(WidgetdMethod.allCases.filter { method in
            // Each streaming method's comment in the IDL says to call it with "more".
            let text = method.interface.definition.text
            guard let declaration = text.range(of: "method \(method.member)(") else { return false }
            let comment = text[..<declaration.lowerBound].split(separator: "\n").reversed().prefix { $0.contains("#") }
            return comment.contains { $0.contains("\"more\"") }
        })
        #expect(Set(WidgetdMethod.allCases.filter(\.streams)) == documented)
        #expect(documented == [.monitor, .watchReloads, .watch, .watchActions, .watchWidgets])
    }

    @Test func errorEnumCoversEveryDeclaredErrorAndNothingElse() {
        let declared = Set(WidgetdInterface.allCases.flatMap(\.definition.errors))
        #expect(Set(WidgetdErrorName.allCases.map(\.member)) == declared)
        for error in WidgetdErrorName.allCases {
            #expect(error.fullName == "io.widgetd.\(error.member)")
        }
    }

    @Test func interfaceEnumNamesTheServedInterfacesAfterVarlinkService() {
        #expect(InterfaceDefinition.all.map(\.name) == ["org.varlink.service"] + WidgetdInterface.allCases.map(\.name))
    }
}

extension WidgetdMethod: CustomTestStringConvertible {
    public var testDescription: String { fullName }
}
