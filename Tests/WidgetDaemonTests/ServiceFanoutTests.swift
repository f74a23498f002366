import Foundation
import SecureMemory
import Testing
import WidgetModel
import WidgetStore

@testable import WidgetDaemon

/// An unlock re-presents every watch at once (issue 19's fan-out): each (widget, surface)
/// is presented and encoded once and its bytes shared by the hosts watching it, without
/// changing what any host is sent or how its connection protects it.
@Suite struct ServiceFanoutTests {
    static let health = ServiceHarness.widgets[.complete]!
    static let other = "com.example.health/steps"

    static func secret(_ call: ServiceHarness.Call) -> String? {
        let entry = (call.parameters["presentation"] as? [String: Any])?["entry"] as? [String: Any]
        return ((entry?["fields"] as? [String: Any])?["balance"] as? [String: Any])?["value"] as? String
    }

    /// Hosts on their own connections share one encoded reply per widget, and each still
    /// gets it marked class A, so that a lock's purge drops it from any connection whose
    /// client has not read it; a lock sends each the placeholder again.
    @Test func anUnlockSendsEveryWatchingHostItsWidgetsContentMarkedWithItsClass() throws {
        let harness = try ServiceHarness(classAGrace: 0)
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.health, secret: "SECRET-rings"))
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.other, secret: "SECRET-steps"))
        harness.ok("io.widgetd.Device.Lock")
        let hosts = (0..<6).map { index in
            harness.call(
                "io.widgetd.Host.Watch", ["widget": index % 2 == 0 ? Self.health : Self.other, "surface": "homeScreen"],
                more: true)
        }
        for host in hosts {
            #expect(host.mode == "placeholder" && Self.secret(host) == nil)
            #expect(host.protections == [nil])
        }

        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        for (index, host) in hosts.enumerated() {
            #expect(host.replies.count == 2)
            #expect(host.mode == "content")
            #expect(Self.secret(host) == (index % 2 == 0 ? "SECRET-rings" : "SECRET-steps"))
            #expect(host.protections.last == ReplyProtection(protectionClass: .complete))
            #expect(host.replies.last?["continues"] as? Bool == true)
        }

        harness.ok("io.widgetd.Device.Lock")
        for host in hosts {
            #expect(host.replies.count == 3)
            #expect(host.mode == "placeholder" && Self.secret(host) == nil)
            #expect(host.protections.last == .some(nil))
        }
    }

    /// A host whose presentation did not change is not sent it again, even when another
    /// host of the same widget is sent its first.
    @Test func aRefreshSendsOnlyTheHostsWhosePresentationChanged() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.health))
        let first = harness.call("io.widgetd.Host.Watch", ["widget": Self.health, "surface": "homeScreen"], more: true)
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.health, secret: "SECRET-new"))
        let second = harness.call("io.widgetd.Host.Watch", ["widget": Self.health, "surface": "homeScreen"], more: true)
        #expect(first.replies.count == 2 && second.replies.count == 1)
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.health, secret: "SECRET-new"))
        #expect(first.replies.count == 2 && second.replies.count == 1)
        #expect(Self.secret(first) == "SECRET-new" && Self.secret(second) == "SECRET-new")
    }

    /// Hosts of distinct class-A widgets: the unlock's pass has the store open their
    /// timelines together before it presents any (in the daemon on two threads), and
    /// each host is sent its own widget's content as before; a lock's pass, showing
    /// placeholders, opens none.
    @Test func anUnlockOpensTheWatchedTimelinesTogetherAndSendsEachHostItsOwn() throws {
        let harness = try ServiceHarness(classAGrace: 0)
        var counts: [Int] = []
        harness.service.timelines.openBodies = { count, work in
            counts.append(count)
            for index in 0..<count { work(index) }
        }
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        let widgets = (0..<4).map { "com.example.health/ring-\($0)" }
        for (index, widget) in widgets.enumerated() {
            harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widget, secret: "SECRET-\(index)"))
        }
        harness.ok("io.widgetd.Device.Lock")
        let hosts = (0..<8).map { index in
            harness.call("io.widgetd.Host.Watch", ["widget": widgets[index % 4], "surface": "homeScreen"], more: true)
        }
        for host in hosts { #expect(host.mode == "placeholder" && Self.secret(host) == nil) }
        #expect(counts.isEmpty)

        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(counts == [4])
        for (index, host) in hosts.enumerated() {
            #expect(host.replies.count == 2)
            #expect(host.mode == "content" && Self.secret(host) == "SECRET-\(index % 4)")
            #expect(host.protections.last == ReplyProtection(protectionClass: .complete))
        }

        harness.ok("io.widgetd.Device.Lock")
        #expect(counts == [4])
        for host in hosts { #expect(host.mode == "placeholder" && Self.secret(host) == nil) }
    }

    /// The unlock's pass decodes each timeline on the thread that opened its body: every
    /// host is sent, byte for byte, what a pass that decodes each on the loop sends,
    /// whether the bodies are opened on two threads, in order on the loop's, or not
    /// together at all (each read and decoded on the loop); a stored body that does not
    /// validate shows as it does on the loop.
    @Test func theTimelinesDecodedWithTheirBodiesShowAsTheLoopShowsThem() throws {
        let invalid = "com.example.health/ring-invalid"
        func unlockPass(_ openBodies: TimelineStore.ConcurrentWork?) throws -> [ServiceHarness.Call] {
            let harness = try ServiceHarness(classAGrace: 0)
            if let openBodies { harness.service.timelines.openBodies = openBodies }
            harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
            let widgets = (0..<4).map { "com.example.health/ring-\($0)" }
            for (index, widget) in widgets.enumerated() {
                harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widget, secret: "SECRET-\(index)"))
            }
            try harness.store.putTimeline(
                try WidgetID(invalid), protectionClass: .complete, family: nil, reloadDue: nil, body: try Array("{\"entries\":1}".utf8).withUnsafeBytes { try SecureBytes(copying: $0) },
                placeholder: nil)
            harness.ok("io.widgetd.Device.Lock")
            let watched = widgets + widgets + [invalid]
            let hosts = watched.map { widget in
                harness.call("io.widgetd.Host.Watch", ["widget": widget, "surface": "homeScreen"], more: true)
            }
            harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
            // What the pass read ahead (metadata, timelines) shows what a read alone shows.
            for (widget, host) in zip(watched, hosts) {
                let alone = harness.call("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": "homeScreen"])
                #expect(alone.error == nil && NSDictionary(dictionary: alone.parameters).isEqual(to: host.parameters))
            }
            return hosts
        }
        let onLoop = try unlockPass { _, _ in }
        let inOrder = try unlockPass { count, work in for index in 0..<count { work(index) } }
        let onTwoThreads = try unlockPass(nil)
        for (index, host) in onLoop.dropLast().enumerated() {
            #expect(host.replies.count == 2 && host.mode == "content" && Self.secret(host) == "SECRET-\(index % 4)")
        }
        // The invalid body shows the placeholder it showed while locked: not sent again.
        #expect(onLoop.last?.replies.count == 1 && onLoop.last?.mode == "placeholder")
        #expect(inOrder.map(\.encoded) == onLoop.map(\.encoded))
        #expect(onTwoThreads.map(\.encoded) == onLoop.map(\.encoded))
        #expect(inOrder.map(\.protections) == onLoop.map(\.protections))
    }

    /// A damaged file among the watched widgets fails alone, wherever the pass reads it:
    /// its hosts keep the placeholder they were shown while locked, every other host is
    /// sent its content, and each is sent the bytes of a pass that reads each file on
    /// the loop.
    @Test func aDamagedFileAmongThoseOpenedTogetherFailsAlone() throws {
        func unlockPass(_ openBodies: TimelineStore.ConcurrentWork?) throws -> [ServiceHarness.Call] {
            let harness = try ServiceHarness(classAGrace: 0)
            if let openBodies { harness.service.timelines.openBodies = openBodies }
            harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
            let widgets = (0..<4).map { "com.example.health/ring-\($0)" }
            let timelines = "\(harness.root)/state/timelines"
            func files() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: timelines)) }
            for index in [0, 1, 3] {
                harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widgets[index], secret: "SECRET-\(index)"))
            }
            try harness.store.foldJournal()
            let before = try files()
            harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widgets[2], secret: "SECRET-2"))
            try harness.store.foldJournal()
            let damaged = "\(timelines)/\(try #require(try files().subtracting(before).first))"
            harness.ok("io.widgetd.Device.Lock")
            var bytes = Array(try #require(FileManager.default.contents(atPath: damaged)))
            bytes[bytes.count - 1] ^= 1
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            let hosts = (widgets + widgets).map { widget in
                harness.call("io.widgetd.Host.Watch", ["widget": widget, "surface": "homeScreen"], more: true)
            }
            harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
            return hosts
        }
        let onLoop = try unlockPass { _, _ in }
        let onTwoThreads = try unlockPass(nil)
        for (index, host) in onTwoThreads.enumerated() {
            if index % 4 == 2 {
                #expect(host.replies.count == 1 && host.mode == "placeholder" && Self.secret(host) == nil)
            } else {
                #expect(host.replies.count == 2 && host.mode == "content" && Self.secret(host) == "SECRET-\(index % 4)")
            }
        }
        #expect(onTwoThreads.map(\.encoded) == onLoop.map(\.encoded))
        #expect(onTwoThreads.map(\.protections) == onLoop.map(\.protections))
    }

    /// A lock that comes while the pass opens the bodies: nothing they opened or decoded
    /// is shown; each host is sent what a pass that opened none sends under that lock.
    @Test func aLockOvertakingThePassShowsNothingItDecoded() throws {
        func unlockPass(lockAfter opened: Int) throws -> [ServiceHarness.Call] {
            let harness = try ServiceHarness(classAGrace: 0)
            let store = harness.store!
            let now = harness.scheduler.clocks
            harness.service.timelines.openBodies = { count, work in
                for index in 0..<count {
                    if index == opened { store.lock(now: now) }
                    work(index)
                }
                if opened >= count { store.lock(now: now) }
            }
            harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
            let widgets = (0..<4).map { "com.example.health/ring-\($0)" }
            for (index, widget) in widgets.enumerated() {
                harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widget, secret: "SECRET-\(index)"))
            }
            harness.ok("io.widgetd.Device.Lock")
            let hosts = widgets.map { widget in
                harness.call("io.widgetd.Host.Watch", ["widget": widget, "surface": "homeScreen"], more: true)
            }
            harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
            return hosts
        }
        let beforeAny = try unlockPass(lockAfter: 0)
        let midway = try unlockPass(lockAfter: 2)
        let afterAll = try unlockPass(lockAfter: 4)
        for host in beforeAny + midway + afterAll { #expect(Self.secret(host) == nil) }
        #expect(midway.map(\.encoded) == beforeAny.map(\.encoded))
        #expect(afterAll.map(\.encoded) == beforeAny.map(\.encoded))
    }

    /// The content replies the unlock's pass presents and encodes on two threads are the
    /// bytes it makes on the loop, and every host is sent its own; a lock that comes
    /// while they are made shows none of them.
    @Test func theRepliesPresentedTogetherAreTheLoopsAndALockShowsNone() throws {
        func unlockPass(_ presentReplies: ((ServiceHarness) -> TimelineStore.ConcurrentWork)?) throws -> (hosts: [ServiceHarness.Call], made: [Int]) {
            let harness = try ServiceHarness(classAGrace: 0)
            var made: [Int] = []
            if let presentReplies {
                let work = presentReplies(harness)
                harness.service.timelines.presentReplies = { count, body in
                    made.append(count)
                    work(count, body)
                }
            }
            harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
            let widgets = (0..<4).map { "com.example.health/ring-\($0)" }
            for (index, widget) in widgets.enumerated() {
                harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widget, secret: "SECRET-\(index)"))
            }
            harness.ok("io.widgetd.Device.Lock")
            let hosts = (widgets + widgets).map { widget in
                harness.call("io.widgetd.Host.Watch", ["widget": widget, "surface": "homeScreen"], more: true)
            }
            harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
            return (hosts, made)
        }
        // Nothing made together: the pass presents each on the loop.
        let onLoop = try unlockPass { _ in { _, _ in } }
        let onTwoThreads = try unlockPass { _ in TimelineStore.onTwoThreads }
        #expect(onTwoThreads.made == [4])
        for (index, host) in onTwoThreads.hosts.enumerated() {
            #expect(host.replies.count == 2 && host.mode == "content" && Self.secret(host) == "SECRET-\(index % 4)")
        }
        #expect(onTwoThreads.hosts.map(\.encoded) == onLoop.hosts.map(\.encoded))
        #expect(onTwoThreads.hosts.map(\.protections) == onLoop.hosts.map(\.protections))

        let locked = try unlockPass { harness in
            let store = harness.store!
            let now = harness.scheduler.clocks
            return { count, work in
                for index in 0..<count {
                    if index == 2 { store.lock(now: now) }
                    work(index)
                }
            }
        }
        #expect(locked.made == [4])
        for host in locked.hosts { #expect(Self.secret(host) == nil) }
    }
}
