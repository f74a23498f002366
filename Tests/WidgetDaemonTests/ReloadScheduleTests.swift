import Foundation
import Testing
import WidgetModel
import WidgetStore

@testable import WidgetDaemon

/// A provider hears of each due reload once (DESIGN §2).
@Suite struct ReloadScheduleTests {
    let weather = try! WidgetID("com.example.weather/forecast")
    let mail = try! WidgetID("com.example.mail/inbox")
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aReloadIsDueAtItsDateAndOnlyUntilAnnounced() {
        var schedule = ReloadSchedule()
        schedule.stored(weather, generation: 1, due: t0)
        #expect(schedule.due(at: t0.addingTimeInterval(-1)).isEmpty)
        #expect(schedule.nextDue(after: t0.addingTimeInterval(-1)) == t0)
        #expect(schedule.due(at: t0) == [weather])
        schedule.announced(weather)
        #expect(schedule.due(at: t0.addingTimeInterval(100)).isEmpty)
        #expect(schedule.nextDue(after: t0.addingTimeInterval(-1)) == nil)
    }

    @Test func aNewGenerationIsDueAgain() {
        var schedule = ReloadSchedule()
        schedule.stored(weather, generation: 1, due: t0)
        schedule.announced(weather)
        schedule.stored(weather, generation: 2, due: t0.addingTimeInterval(60))
        #expect(schedule.due(at: t0.addingTimeInterval(30)).isEmpty)
        #expect(schedule.due(at: t0.addingTimeInterval(60)) == [weather])
    }

    @Test func neverDueAndDeletedTimelinesAreNotAnnounced() {
        var schedule = ReloadSchedule()
        schedule.stored(weather, generation: 1, due: nil)
        schedule.stored(mail, generation: 1, due: t0)
        schedule.removed(mail)
        #expect(schedule.due(at: .distantFuture).isEmpty)
        #expect(schedule.widgets == [weather])
    }
}
