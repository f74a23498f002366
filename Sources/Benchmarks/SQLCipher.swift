import Glibc

/// SQLCipher commits, the peer of widgetd's durable writes: one encrypted database in
/// WAL mode with `synchronous=FULL`, each commit one row of the same size as a stored
/// timeline, from as many writers as widgetd gets connections.
///
/// The library is loaded at run time (`libsqlcipher.so.0`, Debian's `libsqlcipher0`)
/// so that building widgetd never needs it; without it the row is reported as skipped.
final class SQLCipher {
    private typealias Open = @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>, Int32, UnsafePointer<CChar>?) -> Int32
    private typealias Exec = @convention(c) (OpaquePointer, UnsafePointer<CChar>, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    private typealias Prepare = @convention(c) (OpaquePointer, UnsafePointer<CChar>, Int32, UnsafeMutablePointer<OpaquePointer?>, OpaquePointer?) -> Int32
    private typealias BindBlob = @convention(c) (OpaquePointer, Int32, UnsafeRawPointer, Int32, Int) -> Int32
    private typealias BindInt = @convention(c) (OpaquePointer, Int32, Int64) -> Int32
    private typealias Step = @convention(c) (OpaquePointer) -> Int32
    private typealias Close = @convention(c) (OpaquePointer) -> Int32
    private typealias ErrorMessage = @convention(c) (OpaquePointer) -> UnsafePointer<CChar>

    private let open: Open
    private let exec: Exec
    private let prepare: Prepare
    private let bindBlob: BindBlob
    private let bindInt: BindInt
    private let step: Step
    private let reset: Step
    private let close: Close
    private let errorMessage: ErrorMessage

    /// Loads the library, or throws if it is not installed.
    init() throws {
        guard let handle = dlopen("libsqlcipher.so.0", RTLD_NOW) else {
            throw BenchError("libsqlcipher.so.0 not found (apt-get install libsqlcipher0)")
        }
        func symbol<T>(_ name: String, _: T.Type) throws -> T {
            guard let pointer = dlsym(handle, name) else { throw BenchError("libsqlcipher lacks \(name)") }
            return unsafeBitCast(pointer, to: T.self)
        }
        open = try symbol("sqlite3_open_v2", Open.self)
        exec = try symbol("sqlite3_exec", Exec.self)
        prepare = try symbol("sqlite3_prepare_v2", Prepare.self)
        bindBlob = try symbol("sqlite3_bind_blob", BindBlob.self)
        bindInt = try symbol("sqlite3_bind_int64", BindInt.self)
        step = try symbol("sqlite3_step", Step.self)
        reset = try symbol("sqlite3_reset", Step.self)
        close = try symbol("sqlite3_close_v2", Close.self)
        errorMessage = try symbol("sqlite3_errmsg", ErrorMessage.self)
    }

    /// One writer's connection and its prepared `INSERT OR REPLACE`.
    final class Writer {
        private let library: SQLCipher
        private let db: OpaquePointer
        private let statement: OpaquePointer
        private let row: Int64
        private let body: [UInt8]

        /// Opens `path` keyed, in WAL mode with `synchronous=FULL`; creates the table if needed.
        init(library: SQLCipher, path: String, row: Int64, bodyBytes: Int) throws {
            self.library = library
            self.row = row
            body = (0..<bodyBytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var handle: OpaquePointer?
            guard library.open(path, &handle, 0x2 | 0x4, nil) == 0, let handle else { throw BenchError("sqlite3_open_v2 \(path)") }
            db = handle
            for sql in [
                "PRAGMA key = 'widgetd-bench';", "PRAGMA journal_mode = WAL;", "PRAGMA synchronous = FULL;",
                "PRAGMA busy_timeout = 60000;", "CREATE TABLE IF NOT EXISTS timelines (id INTEGER PRIMARY KEY, body BLOB);",
            ] {
                guard library.exec(db, sql, nil, nil, nil) == 0 else {
                    throw BenchError("sqlcipher: \(String(cString: library.errorMessage(db))) in \(sql)")
                }
            }
            var prepared: OpaquePointer?
            guard library.prepare(db, "INSERT OR REPLACE INTO timelines (id, body) VALUES (?, ?);", -1, &prepared, nil) == 0,
                let prepared
            else { throw BenchError("sqlcipher prepare: \(String(cString: library.errorMessage(db)))") }
            statement = prepared
        }

        deinit { _ = library.close(db) }

        /// One durable commit of the row.
        func commit() throws {
            _ = library.bindInt(statement, 1, row)
            _ = body.withUnsafeBytes { library.bindBlob(statement, 2, $0.baseAddress!, Int32($0.count), 0) }
            let result = library.step(statement)
            _ = library.reset(statement)
            guard result == 101 else { throw BenchError("sqlcipher step: \(result) \(String(cString: library.errorMessage(db)))") }
        }
    }
}

extension SQLCipher: @unchecked Sendable {}
