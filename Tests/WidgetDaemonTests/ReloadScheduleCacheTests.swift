import Foundation
import Testing
import WidgetModel
import WidgetStore

@testable import WidgetDaemon

/// `nextDue(after:)` remembers its last answer; through any sequence of changes and
/// instants it must give what a pass over every item gives.
@Suite struct ReloadScheduleCacheTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// What `nextDue` must answer: the earliest unannounced due date after `now`.
    private struct Model {
        var items: [Int: (due: Date?, generation: UInt64, announced: UInt64?)] = [:]
        func nextDue(after now: Date) -> Date? {
            items.values.filter { $0.announced != $0.generation }.compactMap(\.due).filter { $0 > now }.min()
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func cachedAnswersMatchAFullPass(seed: UInt64) throws {
        var random = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let widgets = try (0..<12).map { try WidgetID("com.example.clock/w\($0)") }
        var schedule = ReloadSchedule()
        var model = Model()
        var now = t0
        for step in 0..<2_000 {
            let index = next(widgets.count)
            let due: Date? = next(5) == 0 ? nil : now.addingTimeInterval(Double(next(200)) - 50)
            switch next(6) {
            case 0:
                let generation = (model.items[index]?.generation ?? 0) + 1
                schedule.stored(widgets[index], generation: generation, due: due)
                model.items[index] = (due, generation, nil)
            case 1:
                schedule.removed(widgets[index])
                model.items[index] = nil
            case 2:
                schedule.announced(widgets[index])
                if var item = model.items[index] {
                    item.announced = item.generation
                    model.items[index] = item
                }
            case 3:
                let metadata = TimelineMetadata(
                    widget: widgets[index], protectionClass: .none, family: nil, generation: 1, reloadDue: due,
                    placeholder: nil)
                schedule.found(metadata)
                if model.items[index] == nil { model.items[index] = (due, 1, nil) }
            case 4:
                // Time mostly moves on, sometimes back (a test clock, a clock step).
                now = now.addingTimeInterval(Double(next(40)) - 5)
            default:
                break
            }
            #expect(schedule.nextDue(after: now) == model.nextDue(after: now), "step \(step)")
        }
    }
}
