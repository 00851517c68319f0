import CSQLite

#if canImport(Glibc)
import Glibc
#endif

/// A failed SQLite call: the operation and SQLite's message.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, ...).
    public var code: Int32
    /// SQLite's message for the failure (`sqlite3_errmsg`).
    public var message: String
    /// The message.
    public var description: String { message }
}

/// One SQLite connection, used from one thread at a time (the sidecar's loop); statements are
/// prepared once and reused.
final class SQLiteConnection {
    private(set) var handle: OpaquePointer?

    /// Opens (or, with `create`, creates) the database file at `path`.
    init(path: String, create: Bool) throws(SQLiteError) {
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            handle = nil
            throw SQLiteError(code: status & 0xFF, message: message)
        }
        sqlite3_extended_result_codes(handle, 0)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_free(message)
            throw SQLiteError(code: status & 0xFF, message: withSystemError(text, status: status))
        }
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status) }
        return SQLiteStatement(statement: statement, connection: self)
    }

    /// The first column of the first row of `sql`, as an integer (nil without a row).
    func integer(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.integer(0)
    }

    /// The first column of every row of `sql`, as text.
    func texts(_ sql: String) throws(SQLiteError) -> [String] {
        let statement = try prepare(sql)
        var rows: [String] = []
        while try statement.step() { rows.append(statement.text(0) ?? "") }
        return rows
    }

    func error(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status & 0xFF, message: withSystemError(String(cString: sqlite3_errmsg(handle)), status: status))
    }

    /// SQLite's message, with the operating system's reason after a failed read, write, sync or
    /// open ("disk I/O error (File too large)", "database or disk is full (No space left on
    /// device)"): what an operator needs to act on.
    func withSystemError(_ message: String, status: Int32) -> String {
        let code = status & 0xFF
        guard code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN || code == SQLITE_READONLY else { return message }
        let system = sqlite3_system_errno(handle)
        guard system != 0 else { return message }
        return "\(message) (\(String(cString: strerror(system))))"
    }
}

/// A prepared statement: bind by 1-based index, step, read columns by 0-based index.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection

    init(statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// SQLite copies bound text and blobs before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(
                statement, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                Self.transient)
        }
    }

    func bindNull(_ index: Int32) {
        sqlite3_bind_null(statement, index)
    }

    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(statement, index, value)
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(statement, index, value)
    }

    func bind(_ index: Int32, blob bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            _ = sqlite3_bind_blob(statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), Self.transient)
        }
    }

    /// Advances: true with a row, false when done. Resets the statement when done or failed.
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(statement)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            sqlite3_reset(statement)
            return false
        default:
            let failure = connection.error(status)
            sqlite3_reset(statement)
            throw failure
        }
    }

    /// Steps to completion (a statement without rows).
    func run() throws(SQLiteError) {
        while try step() {}
    }

    /// Ends a row-returning statement early, so it can run again.
    func reset() {
        sqlite3_reset(statement)
    }

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func isInteger(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_INTEGER }

    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column's bytes, valid until the next step or reset.
    func withBlob<R>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let pointer = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }
}
