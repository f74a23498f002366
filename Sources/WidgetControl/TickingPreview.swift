import FoundationEssentials
import Glibc
import Synchronization
import WidgetModel

/// `widgetctl watch` at a terminal: the last preview, redrawn each second while its
/// entry has a date that ticks (`timer`, `relative`; never a redacted one), as a lock
/// screen's `Text(date, style: .timer)` counts with no new entry.
///
/// The stream's replies and the ticks draw through one lock, so that two previews are
/// never interleaved; the ticker thread stops at its next tick once ``stop()`` is called.
final class TickingPreview: @unchecked Sendable {
    private struct Shown {
        var presentation: Presentation?
        var stamp = ""
        var drawn = ""
        var stopped = false
        var ticking = false
    }

    private let state = Mutex(Shown())
    private let context: CommandContext
    private let draw: (Presentation, Date) -> String

    /// Draws through `context`; `draw` makes the text of one preview at a time.
    init(context: CommandContext, draw: @escaping (Presentation, Date) -> String) {
        self.context = context
        self.draw = draw
    }

    /// Draws a presentation that arrived, stamped; starts ticking if it should.
    func show(_ presentation: Presentation, stamp: String) {
        let startTicker = state.withLock { shown -> Bool in
            shown.presentation = presentation
            shown.stamp = stamp
            shown.drawn = draw(presentation, context.clock())
            write(shown)
            guard !shown.ticking, RoleLayout.ticks(presentation.entry) else { return false }
            shown.ticking = true
            return true
        }
        if startTicker { startThread() }
    }

    /// Ends the ticks.
    func stop() { state.withLock { $0.stopped = true } }

    private func write(_ shown: Shown) {
        context.standardOutput.write(Widgetctl.Watch.clearScreen)
        context.print(shown.stamp)
        context.standardOutput.write(shown.drawn)
    }

    /// Redraws if the time changed what is drawn; false once stopped.
    private func tick() -> Bool {
        state.withLock { shown in
            guard !shown.stopped else { return false }
            guard let presentation = shown.presentation, RoleLayout.ticks(presentation.entry) else { return true }
            let drawn = draw(presentation, context.clock())
            if drawn != shown.drawn {
                shown.drawn = drawn
                write(shown)
            }
            return true
        }
    }

    private final class Body: @unchecked Sendable {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private func startThread() {
        let body = Unmanaged.passRetained(Body { [self] in
            var second = timespec(tv_sec: 1, tv_nsec: 0)
            repeat { nanosleep(&second, nil); second = timespec(tv_sec: 1, tv_nsec: 0) } while tick()
        }).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, body)
        if started == 0 { pthread_detach(thread) } else { Unmanaged<Body>.fromOpaque(body).release() }
    }
}
