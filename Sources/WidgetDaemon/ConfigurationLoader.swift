import FoundationEssentials
import Glibc
import WidgetdPOSIX

/// Reads the configuration files from disk and hands them to ``ConfigurationParser``.
///
/// Layout (DESIGN §7): the main file (e.g. `/etc/widgetd/widgetd.conf`), its drop-ins
/// `widgetd.conf.d/*.conf` beside it in lexical order, and providers in
/// `providers.d/*.conf` beside it, also in lexical order.
enum ConfigurationLoader {
    /// Loads the configuration whose main file is `mainFile`; a missing main file (or
    /// missing directories) mean defaults. A provider file that cannot be read is a
    /// problem of the configuration, like one with an error, not a reason to stop.
    static func load(
        mainFile: String, resolver: any AccountResolver = SystemAccountResolver()
    ) throws(ConfigurationError) -> Configuration {
        let files = try self.files(mainFile: mainFile)
        var configuration = try ConfigurationParser(resolver: resolver, instanceOwner: instanceOwner(mainFile: mainFile)).parse(
            main: files.main, dropIns: files.dropIns, providers: files.providers)
        configuration.problems = files.unreadableProviders + configuration.problems
        return configuration
    }

    /// Every problem of the configuration whose main file is `mainFile`, as
    /// `widgetd --check-config` prints them; an unreadable main file or drop-in is one.
    static func check(
        mainFile: String, resolver: any AccountResolver = SystemAccountResolver()
    ) -> [ConfigurationProblem] {
        let files: Files
        do { files = try self.files(mainFile: mainFile) } catch { return [.init(severity: .error, error: error)] }
        return files.unreadableProviders
            + ConfigurationParser(resolver: resolver, instanceOwner: instanceOwner(mainFile: mainFile)).check(
                main: files.main, dropIns: files.dropIns, providers: files.providers)
    }

    /// The owner of the instance reading `mainFile` when it is a per-user one: the uid
    /// it runs as; nil for the system instance (``DaemonPaths/isSystemInstance(uid:configurationFile:)``),
    /// where a provider without a writer stays an error.
    static func instanceOwner(mainFile: String) -> UInt32? {
        let uid = UInt32(getuid())
        return DaemonPaths.isSystemInstance(uid: uid, configurationFile: mainFile) ? nil : uid
    }

    /// The texts of a configuration's files.
    private struct Files {
        var main: ConfigurationSource?
        var dropIns: [ConfigurationSource]
        var providers: [ConfigurationSource]
        var unreadableProviders: [ConfigurationProblem]
    }

    private static func files(mainFile: String) throws(ConfigurationError) -> Files {
        let directory = PathComponents.parent(of: mainFile)
        let main = try read(mainFile)
        let dropIns = try confFiles(in: mainFile + ".d").map { (path) throws(ConfigurationError) in try read(path) }
        var providers: [ConfigurationSource?] = []
        var unreadable: [ConfigurationProblem] = []
        let providerDirectory = PathComponents.appending("providers.d", to: directory)
        for path in try confFiles(in: providerDirectory) {
            do { providers.append(try read(path)) } catch {
                unreadable.append(.init(severity: .error, error: error, disablesProviderFile: true))
            }
        }
        return Files(
            main: main, dropIns: dropIns.compactMap { $0 }, providers: providers.compactMap { $0 },
            unreadableProviders: unreadable)
    }

    /// The paths of a directory's `*.conf` files in lexical order; none when it does not
    /// exist.
    private static func confFiles(in directory: String) throws(ConfigurationError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            var status = stat()
            if stat(directory, &status) != 0, errno == ENOENT { return [] }
            throw ConfigurationError(file: directory, line: 0, reason: .unreadable("cannot list the directory"))
        }
        return names.filter { $0.hasSuffix(".conf") }.sorted().map { PathComponents.appending($0, to: directory) }
    }

    /// A file's text, or `nil` when it does not exist.
    private static func read(_ path: String) throws(ConfigurationError) -> ConfigurationSource? {
        guard let data = FileManager.default.contents(atPath: path) else {
            var status = stat()
            if stat(path, &status) != 0, errno == ENOENT { return nil }
            throw ConfigurationError(file: path, line: 0, reason: .unreadable(String(cString: strerror(errno))))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(file: path, line: 0, reason: .unreadable("not UTF-8 text"))
        }
        return ConfigurationSource(path: path, text: text)
    }
}

/// Resolves names through the system's user and group databases (NSS).
struct SystemAccountResolver: AccountResolver {
    /// Creates a resolver.
    init() {}

    /// The uid from `getpwnam_r`.
    func userID(named name: String) -> UInt32? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }

    /// The gid from `getgrnam_r`.
    func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 65_536)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}
