import Foundation
import Testing
import VarlinkTransport
import WidgetModel
import WidgetdPOSIX

@testable import WidgetDaemon

/// The watches of one widget are found by widget (a write re-presents them without a
/// pass over every watch), and that index stays exactly the list of watches as
/// connections close and streams end.
@Suite struct SubscriptionsTests {
    static let widgets = ["com.example.health/rings", "com.example.mail/inbox", "com.example.weather/now"].map { try! WidgetID($0) }

    /// A connection whose openness a test switches.
    final class Connection {
        let id: ConnectionID
        var isOpen = true
        init(_ id: UInt64) { self.id = ConnectionID(rawValue: id) }
    }

    private func watch(_ widget: WidgetID, on connection: Connection) -> Subscriptions.PresentationWatch {
        let context = CallContext(
            connection: connection.id, peer: PeerCredentials(pid: 1, uid: 0, gid: 0), wantsMore: true,
            deliver: { _, _ in }, isConnectionOpen: { connection.isOpen })
        return Subscriptions.PresentationWatch(context: context, widget: widget, surface: .homeScreen)
    }

    /// The index against the list it indexes: every widget's watches are the list's
    /// watches of that widget, in the list's order, and no widget is left without any.
    private func expectExact(_ subscriptions: Subscriptions, sourceLocation: SourceLocation = #_sourceLocation) {
        let listed = Set(subscriptions.watches.map(\.widget))
        #expect(subscriptions.watchedWidgets == listed, sourceLocation: sourceLocation)
        for widget in Self.widgets {
            let expected = subscriptions.watches.filter { $0.widget == widget }.map(ObjectIdentifier.init)
            #expect(subscriptions.watches(of: widget).map(ObjectIdentifier.init) == expected, sourceLocation: sourceLocation)
        }
    }

    @Test func aWidgetsWatchesAreItsOwnInTheOrderTheyCame() {
        var subscriptions = Subscriptions()
        let connections = (1...3).map { Connection(UInt64($0)) }
        var added: [Subscriptions.PresentationWatch] = []
        for index in 0..<9 {
            let made = watch(Self.widgets[index % 2], on: connections[index % 3])
            added.append(made)
            subscriptions.add(made)
        }
        #expect(subscriptions.watches(of: Self.widgets[0]).map(ObjectIdentifier.init) == [0, 2, 4, 6, 8].map { ObjectIdentifier(added[$0]) })
        #expect(subscriptions.watches(of: Self.widgets[1]).map(ObjectIdentifier.init) == [1, 3, 5, 7].map { ObjectIdentifier(added[$0]) })
        #expect(subscriptions.watches(of: Self.widgets[2]).isEmpty)
        expectExact(subscriptions)
    }

    /// A closed connection takes its watches out of the index, with any whose
    /// connection is gone; a stream that ended takes only itself.
    @Test func removalsKeepTheIndexExact() {
        var subscriptions = Subscriptions()
        let connections = (1...4).map { Connection(UInt64($0)) }
        var added: [Subscriptions.PresentationWatch] = []
        for index in 0..<12 {
            let made = watch(Self.widgets[index % 3], on: connections[index % 4])
            added.append(made)
            subscriptions.add(made)
        }
        subscriptions.remove(connection: connections[0].id)
        #expect(subscriptions.watches.count == 9)
        expectExact(subscriptions)

        // Connection 3 closed without a word yet: it goes with the next removal.
        connections[2].isOpen = false
        subscriptions.remove(connection: connections[1].id)
        #expect(subscriptions.watches.count == 3)
        #expect(Set(subscriptions.watches.map(\.context.connection)) == [connections[3].id])
        expectExact(subscriptions)

        subscriptions.remove(added[3])
        #expect(subscriptions.watches.count == 2)
        expectExact(subscriptions)
        for made in subscriptions.watches { subscriptions.remove(made) }
        #expect(subscriptions.watches.isEmpty && subscriptions.watchedWidgets.isEmpty)

        // Watched again after everything went.
        let again = watch(Self.widgets[1], on: connections[3])
        subscriptions.add(again)
        #expect(subscriptions.watches(of: Self.widgets[1]).map(ObjectIdentifier.init) == [ObjectIdentifier(again)])
        expectExact(subscriptions)
    }

    /// Through the service: a write reaches exactly its widget's watching hosts, and
    /// after a host of it disconnects, exactly those still there.
    @Test func aWriteReachesExactlyItsWidgetsWatches() throws {
        let harness = try ServiceHarness()
        let widgets = ["com.example.health/ring-0", "com.example.health/ring-1"]
        for widget in widgets { harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widget)) }
        let hosts = (0..<6).map { index in
            harness.call(
                "io.widgetd.Host.Watch", ["widget": widgets[index % 2], "surface": "homeScreen"], more: true,
                connection: UInt64(1000 + index))
        }
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widgets[0], secret: "SECRET-new"))
        #expect(hosts.map(\.replies.count) == [2, 1, 2, 1, 2, 1])

        // The first host's connection closes.
        hosts[0].connectionOpen = false
        harness.service.timelines.connectionClosed(ConnectionID(rawValue: 1000))
        #expect(harness.service.timelines.subscriptions.watches(of: try WidgetID(widgets[0])).count == 2)
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widgets[0], secret: "SECRET-newer"))
        #expect(hosts.map(\.replies.count) == [2, 1, 3, 1, 3, 1])
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widgets[1], secret: "SECRET-other"))
        #expect(hosts.map(\.replies.count) == [2, 2, 3, 2, 3, 2])
    }
}
