import Glibc
import Testing

import WidgetdPOSIX

/// The one syscall helper: EINTR retried, other failures typed, bugs trapped.
@Suite struct SyscallTests {
    @Test func anInterruptedCallIsRetried() throws {
        var calls = 0
        let result = try Syscall.retrying("test") { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7 && calls == 3)
    }

    @Test func aFailureThrowsTheCallAndItsErrno() {
        #expect(throws: SystemError("open", errno: .noSuchFileOrDirectory)) {
            try Syscall.retrying("open") { open("/nonexistent/widgetd-syscall-test", O_RDONLY) }
        }
    }

    @Test func aNonBlockingCallThatWouldBlockIsNil() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { fds.forEach { _ = close($0) } }
        let reader = FileDescriptor(rawValue: fds[0])
        try Syscall.setNonBlocking(reader)
        var buffer = [UInt8](repeating: 0, count: 8)
        let count = try buffer.withUnsafeMutableBytes { (bytes) throws(SystemError) in try Syscall.receive(reader, into: bytes) }
        #expect(count == nil)
    }

    @Test func aClosedDescriptorIsABugAndTraps() async {
        await #expect(processExitsWith: .failure) {
            var byte: UInt8 = 0
            _ = try? Syscall.retrying("read") { read(-1, &byte, 1) }
        }
    }

    @Test func aBadAddressIsABugAndTraps() async {
        await #expect(processExitsWith: .failure) {
            var fds: [Int32] = [0, 0]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            let bad = UnsafeRawPointer(bitPattern: 8)
            _ = try? Syscall.retrying("send") { send(fds[0], bad, 1, 0) }
        }
    }

    @Test func anErrorDescribesTheCallAndTheSystemsText() {
        #expect(SystemError("bind /x", errno: .addressInUse).description == "bind /x: Address already in use")
    }
}
