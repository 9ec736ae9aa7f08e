import CSQLite
import Foundation
import MapbookCore

/// Why a geodatabase could not be read: one sentence.
public struct GeodatabaseError: UserFacingError, Equatable, Sendable, CustomStringConvertible {
    public let sentence: String
    /// Made one clean line here: sentences name the file's own tables and layers.
    public init(_ sentence: String) { self.sentence = TerminalText.sanitizedLine(sentence, maxLength: 2_000) }
    public var description: String { sentence }
    public var userMessage: String { sentence }
}

/// A SQLite file opened read-only and immutable (nothing it holds can be written, and no journal
/// is looked for), with limits a hostile file cannot pass: no value over 64 MiB, no statement
/// running over its time, views and triggers unable to call any function with side
/// effects (`trusted_schema` off).
final class SQLiteFile {
    private let handle: OpaquePointer
    /// The file, opened as every file mapbook reads (never blocking on a FIFO), kept open so that
    /// SQLite reads this very file through `/proc/self/fd`, whatever is done to the path.
    private let file: ReadableFile
    private let deadline: DeadlineBox
    private let statementSeconds: Double
    static let largestValue: Int32 = 64 << 20

    /// A box the progress handler reads through its context pointer.
    private final class DeadlineBox { var at = Date.distantFuture }

    init(path: String, statementSeconds: Double) throws {
        self.statementSeconds = statementSeconds
        do { file = try ReadableFile(path: path) } catch { throw GeodatabaseError("It cannot be opened (\(error.reason)).") }
        // A URI, so `immutable=1` can be said; the path's own `%`, `?` and `#` escaped.
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%?#")
        let escaped = file.stablePath.addingPercentEncoding(withAllowedCharacters: allowed) ?? file.stablePath
        var db: OpaquePointer?
        let status = sqlite3_open_v2("file:\(escaped)?mode=ro&immutable=1", &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        guard status == SQLITE_OK, let db else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw GeodatabaseError("It cannot be opened (\(TerminalText.sanitizedLine(reason, maxLength: 120))).")
        }
        handle = db
        deadline = DeadlineBox()
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Self.largestValue)
        sqlite3_progress_handler(db, 20_000, { context in
            guard let context else { return 0 }
            return Date() > Unmanaged<DeadlineBox>.fromOpaque(context).takeUnretainedValue().at ? 1 : 0
        }, Unmanaged.passUnretained(deadline).toOpaque())
        // Every property is set: a failure from here on closes the handle in deinit, once.
        try execute("PRAGMA trusted_schema = OFF")
        try execute("PRAGMA query_only = ON")
        // Reading the schema is the first real read: a file that is not SQLite fails here.
        try rows("SELECT count(*) FROM sqlite_master") { _ in true }
    }

    deinit { sqlite3_close_v2(handle) }

    private func execute(_ sql: String) throws {
        try rows(sql) { _ in true }
    }

    /// Runs `sql` with `doubles` bound in order, calling `each` per row until it returns false.
    func rows(_ sql: String, binding doubles: [Double] = [], _ each: (SQLiteRow) throws -> Bool) throws {
        deadline.at = Date().addingTimeInterval(statementSeconds)
        defer { deadline.at = .distantFuture }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure()
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in doubles.enumerated() { sqlite3_bind_double(statement, Int32(index + 1), value) }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: if try !each(SQLiteRow(statement: statement)) { return }
            case SQLITE_DONE: return
            default: throw failure()
            }
        }
    }

    /// The names of a table's (or view's) columns, in order, with their declared types.
    func columns(of table: String) throws -> [(name: String, type: String)] {
        var columns: [(String, String)] = []
        try rows("PRAGMA table_info(\(Self.quoted(table)))") { row in
            if let name = row.text(1) { columns.append((name, row.text(2) ?? "")) }
            return true
        }
        return columns
    }

    /// Whether the schema has a table or view of this name (any case).
    func has(_ name: String, type: String) throws -> Bool {
        var found = false
        try rows("SELECT 1 FROM sqlite_master WHERE type = '\(type)' AND lower(name) = lower('\(name.replacingOccurrences(of: "'", with: "''"))')") { _ in
            found = true
            return false
        }
        return found
    }

    private func failure() -> GeodatabaseError {
        let code = sqlite3_errcode(handle)
        if code == SQLITE_INTERRUPT {
            return GeodatabaseError("Reading it took longer than \(statementSeconds.clampedInt(in: 0...Format.largestShown, rounding: .up)) s and was stopped.")
        }
        let reason = TerminalText.sanitizedLine(String(cString: sqlite3_errmsg(handle)), maxLength: 160)
        return GeodatabaseError(code == SQLITE_NOTADB ? "It is not a SQLite database." : "It cannot be read (\(reason)).")
    }

    /// An identifier from the file, quoted for SQL whatever it holds.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// One row of a running statement; valid only inside the `rows` callback.
struct SQLiteRow {
    let statement: OpaquePointer

    var count: Int { Int(sqlite3_column_count(statement)) }

    func name(_ column: Int) -> String { sqlite3_column_name(statement, Int32(column)).map { String(cString: $0) } ?? "" }

    func isNull(_ column: Int) -> Bool { sqlite3_column_type(statement, Int32(column)) == SQLITE_NULL }

    func int(_ column: Int) -> Int64? { isNull(column) ? nil : sqlite3_column_int64(statement, Int32(column)) }

    func double(_ column: Int) -> Double? { isNull(column) ? nil : sqlite3_column_double(statement, Int32(column)) }

    func text(_ column: Int) -> String? {
        guard !isNull(column), let bytes = sqlite3_column_text(statement, Int32(column)) else { return nil }
        let length = Int(sqlite3_column_bytes(statement, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    func blob(_ column: Int) -> [UInt8]? {
        guard sqlite3_column_type(statement, Int32(column)) == SQLITE_BLOB else { return nil }
        let length = Int(sqlite3_column_bytes(statement, Int32(column)))
        guard length > 0, let bytes = sqlite3_column_blob(statement, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// The value as JSON: integers and reals as numbers, text as strings, blobs left out (null).
    func json(_ column: Int) -> JSONValue {
        switch sqlite3_column_type(statement, Int32(column)) {
        case SQLITE_INTEGER: return .number(Double(sqlite3_column_int64(statement, Int32(column))))
        case SQLITE_FLOAT: return .number(sqlite3_column_double(statement, Int32(column)))
        case SQLITE_TEXT: return text(column).map(JSONValue.string) ?? .null
        default: return .null
        }
    }
}
