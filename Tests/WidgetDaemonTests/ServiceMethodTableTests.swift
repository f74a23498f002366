import Testing
import Varlink

@testable import WidgetDaemon

/// Dispatch and authorization read one table: every method the io.widgetd IDL declares
/// has exactly one row, and every row is a method of the IDL.
@Suite struct ServiceMethodTableTests {
    static let interfaces = [InterfaceDefinition.device, .provider, .host]

    static var declared: [String] {
        interfaces.flatMap { interface in interface.methods.sorted().map { "\(interface.name).\($0)" } }
    }

    @Test(arguments: declared)
    func everyMethodOfTheIDLHasExactlyOneRow(method: String) {
        #expect(MethodTable.rows.filter { $0.method == method }.count == 1)
    }

    @Test func everyRowIsAMethodOfTheIDL() {
        let declared = Set(Self.declared)
        for row in MethodTable.rows { #expect(declared.contains(row.method), "\(row.method) is not in the IDL") }
        #expect(MethodTable.rows.count == declared.count)
    }

    /// Only PutTimeline's writes gather: every other call sees them committed first.
    @Test func onlyPutTimelineLetsAcceptedWritesWait() {
        #expect(MethodTable.rows.filter { !$0.commitsAcceptedWritesFirst }.map(\.method) == [MethodTable.putTimeline])
    }

    /// The names the service uses outside dispatch are rows of the table.
    @Test func theNamesUsedOutsideDispatchAreRows() {
        for name in [MethodTable.getPresentation, MethodTable.watch, MethodTable.putTimeline, MethodTable.unlock, MethodTable.setPasscode] {
            #expect(MethodTable.row(name) != nil, "\(name)")
        }
    }
}
