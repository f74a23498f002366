import Glibc
import Testing
import WidgetdPOSIX

// ProcessHygiene.apply() is proven on the real daemon (IntegrationTests/MemoryHygieneTests:
// RLIMIT_CORE 0 read from /proc/PID/limits, memory unreadable to a same-uid process, no
// core on a crash), not here: applied to the test runner it would change every later test.

@Suite struct ProcessHygieneRules {
    @Test func reportsTheSoftMemlockLimit() {
        var limit = rlimit()
        #expect(getrlimit(Int32(__RLIMIT_MEMLOCK.rawValue), &limit) == 0)
        let expected: UInt64? = limit.rlim_cur == rlim_t.max ? nil : UInt64(limit.rlim_cur)
        #expect(ProcessHygiene.lockedMemoryLimit() == expected)
    }
}
