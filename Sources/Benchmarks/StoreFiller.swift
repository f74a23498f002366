import Foundation
import SecureMemory
import StoreKeys
import WidgetModel
import WidgetStore

/// Fills a stopped daemon's state directory with timelines through the real store API
/// (`TimelineStore.putTimeline`: sealed, written, `fsync`ed and renamed like every
/// write), without a socket round trip per timeline.
enum StoreFiller {
    /// Adds timelines `fill-<from>` … `fill-<to - 1>`, cycling through the four classes.
    static func fill(stateDirectory: String, from: Int, to: Int, bodyBytes: Int) throws {
        guard to > from else { return }
        var configuration = StoreConfiguration()
        configuration.maxCachedTimelines = 1
        let store = try TimelineStore(stateDirectory: stateDirectory, credentialsDirectory: nil, configuration: configuration, now: Date())
        let entries = try JSONDecoder().decode(
            [Entry].self, from: JSONSerialization.data(withJSONObject: VarlinkRequest.entries(totalBytes: bodyBytes)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let timeline = Timeline(entries: entries)
        let json = try encoder.encode(timeline)
        let classes: [(provider: String, protection: ProtectionClass)] = [
            ("com.example.health", .complete), ("com.example.mail", .completeUnlessOpen),
            ("com.example.weather", .completeUntilFirstUserAuthentication), ("com.example.clock", .none),
        ]
        // Group commits of 256, as the daemon makes of concurrent writes: every file is
        // still written, synced and renamed, the directory synced once per batch.
        for start in stride(from: from, to: to, by: 256) {
            let writes = try (start..<min(start + 256, to)).map { i in
                let (provider, protection) = classes[i % classes.count]
                return TimelineStore.TimelineWrite(
                    widget: try WidgetID("\(provider)/fill-\(i)"), protectionClass: protection, family: "systemSmall",
                    reloadDue: timeline.reloadDue, body: try json.withUnsafeBytes { try SecureBytes(copying: $0) },
                    placeholder: nil)
            }
            for result in store.putTimelines(writes) { _ = try result.get() }
        }
    }
}
