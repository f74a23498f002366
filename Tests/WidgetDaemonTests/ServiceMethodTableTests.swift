import Testing
import Varlink
import WidgetdPOSIX
import WidgetdWire

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
        #expect(MethodTable.rows.filter { $0.method.fullName == method }.count == 1)
        #expect(MethodTable.row(method)?.method.fullName == method)
    }

    @Test func everyRowIsAMethodOfTheIDL() {
        let declared = Set(Self.declared)
        for row in MethodTable.rows { #expect(declared.contains(row.method.fullName), "\(row.method) is not in the IDL") }
        #expect(MethodTable.rows.count == declared.count)
    }

    /// Only PutTimeline's writes gather: every other call sees its own answered writes
    /// applied, and none waits on the loop for a commit (a wipe is parked instead).
    @Test func onlyPutTimelineLetsAcceptedWritesWait() {
        #expect(MethodTable.rows.filter { $0.waits == .none }.map(\.method) == [.putTimeline])
        #expect(MethodTable.rows.filter { $0.waits != .none }.allSatisfy { $0.waits == .own })
    }

    /// An unknown method has no row: only an administrator hears that it does not exist.
    @Test func aMethodOutsideTheTableIsForAdministratorsOnly() throws {
        let harness = try ServiceHarness()
        #expect(harness.call("io.widgetd.Host.Steal").error == "org.varlink.service.MethodNotFound")
        #expect(harness.call("io.widgetd.Host.Steal", peer: PeerCredentials(pid: 1, uid: 5000, gid: 5000)).error == "io.widgetd.PermissionDenied")
    }
}
