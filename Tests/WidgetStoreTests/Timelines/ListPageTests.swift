import Foundation
import Testing
import WidgetModel
@testable import WidgetStore

/// `listTimelines(after:provider:limit:)` (ListWidgets' pages) selects each page from
/// the index without sorting every timeline, and its pages put together are the sorted
/// list, for any provider and page size.
@Suite struct ListPageRules {
    @Test(arguments: [1, 7, 50, 100, TimelineIndex.insertedPageLimit])
    func pagesPutTogetherAreTheSortedList(limit: Int) throws {
        let f = Fixture()
        let store = try f.open()
        let providers = ["com.example.a", "com.example.b", "com.example.ab"]
        for i in 0..<60 {
            try store.putTimeline(
                widget("\(providers[i % 3])/kind\(i % 4)#\(i * 7919 % 61)"), protectionClass: .none, family: nil,
                reloadDue: nil, body: secure("\(i)"), placeholder: nil)
        }
        try store.deleteTimeline(widget("com.example.a/kind0#0"))
        for provider in [nil, "com.example.a", "com.example.ab"] {
            let all = try store.listTimelines().filter { provider == nil || $0.widget.provider == provider }.map(\.widget)
            var paged: [WidgetID] = []
            var after: WidgetID?
            while true {
                let (page, more) = try store.listTimelines(after: after, provider: provider, limit: limit)
                #expect(page.count <= limit)
                paged += page.map(\.widget)
                guard more else { break }
                #expect(page.count == limit)
                after = page.last?.widget
            }
            #expect(paged == all)
        }
    }
}
