import Foundation
import Glibc
import Testing
@testable import WidgetdPOSIX

@Suite struct UnixListenerTests {
    private let directory = NSTemporaryDirectory() + "widgetd-listener-\(UUID().uuidString)"

    @Test func createsTheParentDirectoryAndASocketOnlyOwnerAndGroupCanUse() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/run/widgetd/widgetd.sock"
        let fd = try UnixListener.listen(at: path).fd.rawValue
        defer { close(fd) }
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o777 == 0o660)
        #expect(stat(directory + "/run/widgetd", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o755)
    }

    @Test func replacesAStaleSocketFromAnEarlierRun() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/w.sock"
        close(try UnixListener.listen(at: path).fd.rawValue)
        let fd = try UnixListener.listen(at: path).fd.rawValue
        close(fd)
    }

    @Test func leavesAnythingButASocketAlone() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/not-a-socket"
        try "keep me".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SystemError.self) { try UnixListener.listen(at: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }
}

@Suite struct PeerCredentialsTests {
    @Test func readsTheGroupsLineOfProcStatus() {
        let status = "Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGroups:\t4 24 27 1000 \nNgid:\t0\n"
        #expect(PeerCredentials.parseGroupsLine(status) == [4, 24, 27, 1000])
        #expect(PeerCredentials.parseGroupsLine("Groups:\n") == [])
        #expect(PeerCredentials.parseGroupsLine("Name:\tx\n") == nil)
    }

    @Test func membershipCountsThePrimaryAndSupplementaryGroups() {
        let peer = PeerCredentials(pid: 1, uid: 1000, gid: 100, groups: [27, 1000])
        #expect(peer.isMember(of: 100) && peer.isMember(of: 27))
        #expect(!peer.isMember(of: 0))
    }

    @Test func readsThePeerOfASocketPair() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let peer = try PeerCredentials.of(socket: FileDescriptor(rawValue: fds[0]))
        #expect(peer.pid == getpid() && peer.uid == getuid() && peer.gid == getgid())
        var expectedGroups = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(expectedGroups.count), &expectedGroups)
        #expect(Set(peer.groups) == Set(expectedGroups.prefix(Int(count))))
    }
}
