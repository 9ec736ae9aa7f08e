import CSQLite
import Foundation
import MapbookCore

/// Why a geodatabase could not be read: one sentence.
public struct GeodatabaseError: UserFacingError, Equatable, Sendable, CustomStringConvertible {
    public let sentence: String
    /// The file's `GeodatabaseLimits` stopped the reading (what was read before may be used).
    public let isLimit: Bool
    /// Made one clean line here: sentences name the file's own tables and layers.
    public init(_ sentence: String, limit: Bool = false) {
        self.sentence = TerminalText.sanitizedLine(sentence, maxLength: 2_000)
        isLimit = limit
    }
    public var description: String { sentence }
    public var userMessage: String { sentence }
}

/// What reading one geodatabase may cost, every read of it together: a hostile file (views and
/// generated columns compute huge values from a few bytes; a view can be made never to end) is
/// stopped at one of these, and the sentence says which.
public struct GeodatabaseLimits: Sendable, Equatable {
    /// Wall-clock time for the whole file, and for any one statement.
    public var seconds: Double
    public var statementSeconds: Double
    /// Text and blobs taken from the file, in all; and the largest single value.
    public var bytes: Int
    public var largestValue: Int
    /// Features and shape vertices handed out, in all.
    public var features: Int
    public var vertices: Int

    public init(seconds: Double = 60, statementSeconds: Double = 20, bytes: Int = 192 << 20, largestValue: Int = 16 << 20,
                features: Int = 500_000, vertices: Int = 6_000_000) {
        self.seconds = seconds; self.statementSeconds = statementSeconds; self.bytes = bytes
        self.largestValue = largestValue; self.features = features; self.vertices = vertices
    }

    /// For drawing, identifying, searching and inspecting.
    public static let standard = GeodatabaseLimits()
    /// For SQLite's check of every page of a downloaded file: longer, since a large file takes long.
    public static let verification = GeodatabaseLimits(seconds: 600, statementSeconds: 600)
}

/// What has been spent of a file's `GeodatabaseLimits`; the first limit reached, as a sentence.
final class ReadBudget {
    let limits: GeodatabaseLimits
    let deadline: Date
    /// When the running statement must end (the progress handler reads it).
    var statementDeadline = Date.distantFuture
    private(set) var bytes = 0, features = 0, vertices = 0
    private(set) var exceeded: String?

    init(_ limits: GeodatabaseLimits) {
        self.limits = limits
        deadline = Date().addingTimeInterval(limits.seconds)
    }

    var isSpent: Bool { exceeded != nil }

    /// Whether `count` more bytes may be taken (and they are counted).
    func take(bytes count: Int) -> Bool {
        bytes += count
        if bytes > limits.bytes { stop("mapbook reads at most \(Format.bytes(Int64(limits.bytes))) of text and shapes from one file") }
        return !isSpent
    }

    /// Counts a feature and its vertices; throws once a limit is passed.
    func take(feature vertexCount: Int) throws {
        features += 1
        vertices += vertexCount
        if features > limits.features { stop("mapbook reads at most \(Format.grouped(limits.features)) features from one file") }
        if vertices > limits.vertices { stop("mapbook reads at most \(Format.grouped(limits.vertices)) shape vertices from one file") }
        try check()
    }

    /// Throws the limit reached, if one was; the file's time is checked here too (decoding shapes
    /// happens outside SQLite, where its progress handler cannot see it).
    func check() throws {
        if exceeded == nil, Date() > deadline { stop(timeSentence) }
        if let exceeded { throw GeodatabaseError(exceeded + ".", limit: true) }
    }

    var timeSentence: String { "mapbook spends at most \(limits.seconds.clampedInt(in: 0...Format.largestShown, rounding: .up)) s reading one file" }

    private func stop(_ sentence: String) { if exceeded == nil { exceeded = "Reading stopped: " + sentence } }
}

/// A SQLite file opened read-only and immutable (nothing it holds can be written, and no journal
/// is looked for), within its `GeodatabaseLimits`, views and triggers unable to call any function
/// with side effects (`trusted_schema` off).
final class SQLiteFile {
    private let handle: OpaquePointer
    /// The file, opened as every file mapbook reads (never blocking on a FIFO), kept open so that
    /// SQLite reads this very file through `/proc/self/fd`, whatever is done to the path.
    private let file: ReadableFile
    let budget: ReadBudget

    /// What SQLite itself may allocate, every file together: a view computing huge values from
    /// nothing fails with "out of memory" before the process does.
    private static let heapLimit: Void = { sqlite3_hard_heap_limit64(512 << 20) }()

    init(path: String, limits: GeodatabaseLimits) throws {
        Self.heapLimit
        budget = ReadBudget(limits)
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
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32(clamping: limits.largestValue))
        sqlite3_progress_handler(db, 20_000, { context in
            guard let context else { return 0 }
            let budget = Unmanaged<ReadBudget>.fromOpaque(context).takeUnretainedValue()
            let now = Date()
            return now > budget.statementDeadline || now > budget.deadline ? 1 : 0
        }, Unmanaged.passUnretained(budget).toOpaque())
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

    /// Runs `sql` with `doubles` bound in order, calling `each` per row until it returns false;
    /// throws once the file's budget is spent.
    func rows(_ sql: String, binding doubles: [Double] = [], _ each: (SQLiteRow) throws -> Bool) throws {
        try budget.check()
        budget.statementDeadline = Date().addingTimeInterval(budget.limits.statementSeconds)
        defer { budget.statementDeadline = .distantFuture }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure()
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in doubles.enumerated() { sqlite3_bind_double(statement, Int32(index + 1), value) }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                let more = try each(SQLiteRow(statement: statement, budget: budget))
                try budget.check()
                if !more { return }
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
        let limits = budget.limits
        switch sqlite3_errcode(handle) {
        case SQLITE_INTERRUPT where Date() > budget.deadline:
            return GeodatabaseError("Reading stopped: \(budget.timeSentence).", limit: true)
        case SQLITE_INTERRUPT:
            return GeodatabaseError("Reading it took longer than \(limits.statementSeconds.clampedInt(in: 0...Format.largestShown, rounding: .up)) s and was stopped.")
        case SQLITE_TOOBIG:
            return GeodatabaseError("It holds a value larger than the \(Format.bytes(Int64(limits.largestValue))) mapbook reads.")
        case SQLITE_NOMEM:
            return GeodatabaseError("Reading it needs more memory than mapbook gives SQLite (\(Format.bytes(512 << 20))).")
        case SQLITE_NOTADB:
            return GeodatabaseError("It is not a SQLite database.")
        default:
            return GeodatabaseError("It cannot be read (\(TerminalText.sanitizedLine(String(cString: sqlite3_errmsg(handle)), maxLength: 160))).")
        }
    }

    /// An identifier from the file, quoted for SQL whatever it holds.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// One row of a running statement; valid only inside the `rows` callback. Text and blobs taken
/// are counted against the file's budget; once it is spent they read as absent (and `rows` throws).
struct SQLiteRow {
    let statement: OpaquePointer
    let budget: ReadBudget

    var count: Int { Int(sqlite3_column_count(statement)) }

    func name(_ column: Int) -> String { sqlite3_column_name(statement, Int32(column)).map { String(cString: $0) } ?? "" }

    func isNull(_ column: Int) -> Bool { sqlite3_column_type(statement, Int32(column)) == SQLITE_NULL }

    func int(_ column: Int) -> Int64? { isNull(column) ? nil : sqlite3_column_int64(statement, Int32(column)) }

    func double(_ column: Int) -> Double? { isNull(column) ? nil : sqlite3_column_double(statement, Int32(column)) }

    func text(_ column: Int) -> String? {
        guard !isNull(column), !budget.isSpent, let bytes = sqlite3_column_text(statement, Int32(column)) else { return nil }
        let length = Int(sqlite3_column_bytes(statement, Int32(column)))
        guard budget.take(bytes: length) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    func blob(_ column: Int) -> [UInt8]? {
        guard sqlite3_column_type(statement, Int32(column)) == SQLITE_BLOB, !budget.isSpent else { return nil }
        let length = Int(sqlite3_column_bytes(statement, Int32(column)))
        guard budget.take(bytes: length) else { return nil }
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
