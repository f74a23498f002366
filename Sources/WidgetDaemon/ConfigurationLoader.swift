import Foundation
import Glibc

/// Reads the configuration files from disk and hands them to ``ConfigurationParser``.
///
/// Layout (DESIGN §7): the main file (e.g. `/etc/widgetd/widgetd.conf`), its drop-ins
/// `widgetd.conf.d/*.conf` beside it in lexical order, and providers in
/// `providers.d/*.conf` beside it, also in lexical order.
public enum ConfigurationLoader {
    /// Loads the configuration whose main file is `mainFile`; a missing main file (or
    /// missing directories) mean defaults.
    public static func load(
        mainFile: String, resolver: any AccountResolver = SystemAccountResolver()
    ) throws(ConfigurationError) -> Configuration {
        let directory = (mainFile as NSString).deletingLastPathComponent
        let main = try read(mainFile)
        let dropIns = try confFiles(in: mainFile + ".d")
        let providers = try confFiles(in: (directory as NSString).appendingPathComponent("providers.d"))
        return try ConfigurationParser(resolver: resolver).parse(main: main, dropIns: dropIns, providers: providers)
    }

    /// The `*.conf` files of a directory in lexical order; none when it does not exist.
    private static func confFiles(in directory: String) throws(ConfigurationError) -> [ConfigurationSource] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            var status = stat()
            if stat(directory, &status) != 0, errno == ENOENT { return [] }
            throw ConfigurationError(file: directory, line: 0, reason: .unreadable("cannot list the directory"))
        }
        var sources: [ConfigurationSource] = []
        for name in names.filter({ $0.hasSuffix(".conf") }).sorted() {
            if let source = try read((directory as NSString).appendingPathComponent(name)) { sources.append(source) }
        }
        return sources
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
public struct SystemAccountResolver: AccountResolver {
    /// Creates a resolver.
    public init() {}

    /// The uid from `getpwnam_r`.
    public func userID(named name: String) -> UInt32? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }

    /// The gid from `getgrnam_r`.
    public func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 65_536)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}
