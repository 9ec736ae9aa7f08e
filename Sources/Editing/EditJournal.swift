import CSQLite
import Foundation
import MapbookCore

/// Why the journal could not do what was asked: one sentence.
public struct EditJournalError: UserFacingError, Equatable, Sendable {
    public let userMessage: String
    public init(_ sentence: String) { userMessage = TerminalText.sanitizedLine(sentence, maxLength: 2_000) }
}

/// An area's edits, in a SQLite file beside its packages (`edits.sqlite`), written the moment the
/// user saves: one transaction per save, committed to disk (write-ahead log, `synchronous=FULL`, so
/// the commit is fsynced) before `save` returns. A killed process or a pulled cable loses at most
/// an edit not yet saved; a full disk refuses the save, in a sentence, and keeps the rest. The
/// area's own files are never written. A file found damaged is moved aside, never written over,
/// and a new journal started: `keptAside` says where the old one is.
public final class EditJournal {
    public static let fileName = "edits.sqlite"
    /// The journal's layout; a newer one is refused rather than misread. 2 added each change's
    /// values before it (`original`), what a sync compares the server's with, attachments, and the
    /// server's changes a replica's sync brought down with the generation they reach.
    static let formatVersion: Int32 = 2

    public let path: String
    /// Where a damaged journal found at `path` was moved, when one was.
    public private(set) var keptAside: String?
    var db: OpaquePointer?

    /// The journal of the area whose folder is `folder`, when it has one: viewing an area starts none.
    public static func existing(areaFolder folder: String) throws -> EditJournal? {
        FileManager.default.fileExists(atPath: folder + "/" + fileName) ? try EditJournal(areaFolder: folder) : nil
    }

    /// Opens (or starts) the journal of the area whose folder is `folder`.
    public convenience init(areaFolder folder: String) throws {
        try self.init(path: folder + "/" + Self.fileName)
    }

    public init(path: String) throws {
        self.path = path
        if FileManager.default.fileExists(atPath: path), let damage = try Self.damage(at: path) {
            keptAside = try Self.moveAside(path, because: damage)
        }
        try open()
    }

    deinit { sqlite3_close_v2(db) }

    // MARK: Writing

    /// Saves `edit`, with the files kept for it, and returns it as kept (its sequence number). An
    /// edit saved after an undo ends what redo could bring back.
    @discardableResult
    public func save(_ edit: FeatureEdit, attaching files: [KeptFile] = []) throws -> FeatureEdit {
        var kept = edit
        try transaction {
            try run("DELETE FROM edits WHERE status = 'undone'")
            kept.sequence = try insert(edit)
            kept.status = .pending
            try insertAttachments(files, for: kept)
        }
        return kept
    }

    /// Undoes the latest edit not yet synced; nil when there is none.
    @discardableResult
    public func undo() throws -> FeatureEdit? {
        guard let last = try edits(where: "status IN ('pending', 'refused') ORDER BY sequence DESC LIMIT 1").first else { return nil }
        try transaction { try run("UPDATE edits SET status = 'undone' WHERE sequence = ?", [.integer(last.sequence)]) }
        return last
    }

    /// Brings back the edit undone last, when nothing was saved since; nil when there is none.
    @discardableResult
    public func redo() throws -> FeatureEdit? {
        guard var undone = try edits(where: "status = 'undone' ORDER BY sequence ASC LIMIT 1").first else { return nil }
        try transaction { try run("UPDATE edits SET status = 'pending', reason = NULL WHERE sequence = ?", [.integer(undone.sequence)]) }
        undone.status = .pending
        return undone
    }

    /// Edits carried from another device (`mapbook edits import`), in their order, in one
    /// transaction: an edit already here (the same GlobalID, kind and moment saved) is not added
    /// twice, so importing a file again changes nothing. A change to a feature added there (`-N`)
    /// is numbered for its added feature here.
    public func adopt(_ edits: [FeatureEdit]) throws -> (added: Int, alreadyHere: Int) {
        var added = 0, alreadyHere = 0
        try transaction {
            for var edit in edits {
                let present = try integer("""
                    SELECT COUNT(*) FROM edits WHERE global_id = ? AND kind = ? AND abs(saved_at - ?) < 0.000001
                    """, [.text(edit.globalID), .text(edit.kind.rawValue), .real(edit.savedAt.timeIntervalSince1970)])
                guard present == 0 else { alreadyHere += 1; continue }
                if let objectID = edit.objectID, objectID < 0 {
                    let local = try integer("SELECT COALESCE(MAX(sequence), 0) FROM edits WHERE kind = 'add' AND global_id = ?", [.text(edit.globalID)])
                    edit.objectID = local > 0 ? -local : objectID
                }
                _ = try insert(edit)
                added += 1
            }
        }
        return (added, alreadyHere)
    }

    /// Writes `edit` as pending (inside a transaction); returns its sequence number.
    private func insert(_ edit: FeatureEdit) throws -> Int64 {
        try run("""
            INSERT INTO edits (kind, layer_title, layer_url, global_id, object_id, geometry, attributes, saved_at, status, reason, original)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', NULL, ?)
            """, [.text(edit.kind.rawValue), .text(edit.layer.title), edit.layer.serviceLayerURL.map(Value.text) ?? .null,
                  .text(edit.globalID), edit.objectID.map(Value.integer) ?? .null, edit.geometry.map { .text($0.compactText) } ?? .null,
                  .text(JSONValue.object(edit.attributes).compactText), .real(edit.savedAt.timeIntervalSince1970),
                  edit.original.map { .text(JSONValue.object($0).compactText) } ?? .null])
        return sqlite3_last_insert_rowid(db)
    }

    /// The server took these edits.
    public func markSynced(_ sequences: [Int64]) throws { try record(synced: sequences, refused: []) }

    /// The server refused an edit: it stays, marked, with the reason, until fixed or discarded.
    public func markRefused(_ sequence: Int64, reason: String) throws { try record(synced: [], refused: [(sequence, reason)]) }

    /// A sync's outcome, in one transaction (one fsync for a thousand edits).
    public func record(synced: [Int64], refused: [(sequence: Int64, reason: String)]) throws {
        guard !synced.isEmpty || !refused.isEmpty else { return }
        try transaction {
            for sequence in synced { try run("UPDATE edits SET status = 'synced', reason = NULL WHERE sequence = ?", [.integer(sequence)]) }
            for (sequence, reason) in refused {
                try run("UPDATE edits SET status = 'refused', reason = ? WHERE sequence = ?", [.text(reason), .integer(sequence)])
            }
        }
    }

    /// Synced edits whose features the area's data now holds (its copies fetched again after the
    /// sync): they are neither waiting nor needed to draw the area, and laid over fresher data they
    /// would hide the server's later changes. Only synced edits are removed.
    public func fold(_ sequences: [Int64]) throws {
        guard !sequences.isEmpty else { return }
        try transaction { try removeSynced(sequences) }
    }

    /// `fold`'s rows, inside a transaction already begun.
    func removeSynced(_ sequences: [Int64]) throws {
        for sequence in sequences { try run("DELETE FROM edits WHERE sequence = ? AND status = 'synced'", [.integer(sequence)]) }
    }

    /// Removes an edit not yet synced, by the user's choice; false when there is no such edit.
    @discardableResult
    public func discard(_ sequence: Int64) throws -> Bool {
        var removed = false
        try transaction {
            try run("DELETE FROM edits WHERE sequence = ? AND status IN ('pending', 'refused', 'undone')", [.integer(sequence)])
            removed = sqlite3_changes(db) > 0
            // Its files go with it from the sync (the copies stay on disk until the area is removed).
            if removed { try run("DELETE FROM attachments WHERE edit = ? AND status != 'synced'", [.integer(sequence)]) }
        }
        return removed
    }

    // MARK: Reading

    /// Every edit kept, in the order saved.
    public func all() throws -> [FeatureEdit] { try edits(where: "1 ORDER BY sequence") }

    /// How many edits wait in the journal of the area whose folder is `folder`, read only: nothing
    /// is created, written or moved (the library is read so at every start). Nil without a journal,
    /// or one that cannot be read now; opening the area says why.
    public static func unsyncedCount(areaFolder folder: String) -> Int? {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(folder + "/" + fileName, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return nil }
        sqlite3_busy_timeout(db, 2_000)
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM edits WHERE status IN ('pending', 'refused')", -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// The edits a sync would send, in the order saved.
    public func unsynced() throws -> [FeatureEdit] { try edits(where: "status IN ('pending', 'refused') ORDER BY sequence") }

    private func edits(where clause: String) throws -> [FeatureEdit] {
        let statement = try prepare("""
            SELECT sequence, kind, layer_title, layer_url, global_id, object_id, geometry, attributes, saved_at, status, reason, original
            FROM edits WHERE \(clause)
            """)
        defer { sqlite3_finalize(statement) }
        var found: [FeatureEdit] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw failure("could not be read") }
            func text(_ column: Int32) -> String? { sqlite3_column_text(statement, column).map { String(cString: $0) } }
            // JSON parsed straight from the column's bytes: no string made on the way.
            func json(_ column: Int32) -> JSONValue? {
                guard let bytes = sqlite3_column_blob(statement, column) else { return nil }
                return try? JSONValue(parsing: Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column))))
            }
            guard let kind = text(1).flatMap(FeatureEdit.Kind.init(rawValue:)), let title = text(2), let globalID = text(4),
                  let attributes = json(7)?.object else {
                throw EditJournalError("Edit \(sqlite3_column_int64(statement, 0)) in \(path) cannot be read: it was written by something else.")
            }
            let status: FeatureEdit.Status = switch text(9) {
            case "synced": .synced
            case "refused": .refused(text(10) ?? "The server refused it.")
            case "undone": .undone
            default: .pending
            }
            found.append(FeatureEdit(sequence: sqlite3_column_int64(statement, 0), kind: kind,
                                     layer: EditLayer(title: title, serviceLayerURL: text(3)), globalID: globalID,
                                     objectID: sqlite3_column_type(statement, 5) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 5),
                                     geometry: json(6), attributes: attributes,
                                     savedAt: Date(timeIntervalSince1970: sqlite3_column_double(statement, 8)), status: status,
                                     original: json(11)?.object))
        }
        return found
    }

    // MARK: The file

    private func open() throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil) == SQLITE_OK else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            throw EditJournalError("The edit journal \(path) cannot be opened (\(reason)).")
        }
        // Another mapbook saving to the same area waits its turn rather than failing.
        sqlite3_busy_timeout(db, 10_000)
        try useWriteAheadLog()
        try run("PRAGMA synchronous = FULL")
        let version = try integer("PRAGMA user_version")
        guard version <= Int64(Self.formatVersion) else {
            throw EditJournalError("The edit journal \(path) was written by a newer mapbook; it is left as it is.")
        }
        // Opening a journal already laid out writes nothing (a reader takes no write lock).
        guard version < Int64(Self.formatVersion) else { return }
        try transaction {
            guard version == 0 else {
                // Layout 1 to 2: the values before each change, unknown for the edits already saved.
                try run("ALTER TABLE edits ADD COLUMN original TEXT")
                for table in Self.layoutTwoTables { try run(table) }
                try run("PRAGMA user_version = \(Self.formatVersion)")
                return
            }
            for table in Self.layoutTwoTables { try run(table) }
            try run("""
                CREATE TABLE IF NOT EXISTS edits (
                  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                  kind TEXT NOT NULL CHECK (kind IN ('add', 'update', 'delete')),
                  layer_title TEXT NOT NULL, layer_url TEXT,
                  global_id TEXT NOT NULL, object_id INTEGER,
                  geometry TEXT, attributes TEXT NOT NULL,
                  saved_at REAL NOT NULL,
                  status TEXT NOT NULL CHECK (status IN ('pending', 'synced', 'refused', 'undone')), reason TEXT,
                  original TEXT)
                """)
            try run("PRAGMA user_version = \(Self.formatVersion)")
        }
    }

    /// Turns the write-ahead log on (it stays on in the file). Another mapbook starting the same
    /// journal at that moment makes SQLite answer busy at once, without its busy wait, so this
    /// asks again until the other has finished, for as long as a save would wait.
    private func useWriteAheadLog() throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try run("PRAGMA journal_mode = WAL")
            } catch let error where sqlite3_errcode(db) & 0xFF == SQLITE_BUSY {
                guard ContinuousClock.now < deadline else { throw error }
                usleep(5_000)
            }
        }
    }

    /// Why the file at `path` is not a journal this mapbook can trust, or nil when it is one. Only
    /// what SQLite calls corrupt or not a database is damage; a file another process holds (busy,
    /// locked) or cannot be read now is an error, and the file is left where it is.
    static func damage(at path: String) throws -> String? {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            throw EditJournalError("The edit journal \(path) cannot be opened (\(db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")).")
        }
        sqlite3_busy_timeout(db, 10_000)
        func verdict(_ code: Int32) throws -> String {
            let message = String(cString: sqlite3_errmsg(db))
            guard [SQLITE_NOTADB, SQLITE_CORRUPT].contains(code & 0xFF) else {
                throw EditJournalError("The edit journal \(path) cannot be read now (\(message)); it is left as it is.")
            }
            return "it is not a sound SQLite database (\(message))"
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let prepared = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &statement, nil)
        guard prepared == SQLITE_OK else { return try verdict(prepared) }
        let step = sqlite3_step(statement)
        guard step == SQLITE_ROW, let first = sqlite3_column_text(statement, 0).map({ String(cString: $0) }) else { return try verdict(step) }
        return first == "ok" ? nil : "SQLite finds it damaged (\(TerminalText.sanitizedLine(first, maxLength: 200)))"
    }

    /// Moves a damaged journal (and its log) to a name not yet taken beside it; returns the name.
    static func moveAside(_ path: String, because damage: String) throws -> String {
        let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withYear, .withMonth, .withDay, .withTime])
        var target = "\(path).damaged-\(stamp)"
        var attempt = 1
        while FileManager.default.fileExists(atPath: target) {
            attempt += 1
            target = "\(path).damaged-\(stamp)-\(attempt)"
        }
        guard rename(path, target) == 0 else {
            throw EditJournalError("The edit journal \(path) is damaged (\(damage)) and cannot be moved aside (\(String(cString: strerror(errno)))).")
        }
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            _ = rename(path + suffix, target + suffix)
        }
        return target
    }

    // MARK: SQLite

    enum Value {
        case null, integer(Int64), real(Double), text(String)
    }

    func transaction(_ body: () throws -> Void) throws {
        try run("BEGIN IMMEDIATE")
        do {
            try body()
            try run("COMMIT")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure("could not be read or written") }
        return statement
    }

    func run(_ sql: String, _ values: [Value] = []) throws {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        bind(values, to: statement)
        var step = sqlite3_step(statement)
        while step == SQLITE_ROW { step = sqlite3_step(statement) }
        guard step == SQLITE_DONE else { throw failure("could not be written") }
    }

    func bind(_ values: [Value], to statement: OpaquePointer) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, value) in values.enumerated() {
            let column = Int32(index + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, column)
            case .integer(let number): sqlite3_bind_int64(statement, column, number)
            case .real(let number): sqlite3_bind_double(statement, column, number)
            case .text(let text): sqlite3_bind_text(statement, column, text, -1, transient)
            }
        }
    }

    func integer(_ sql: String, _ values: [Value] = []) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        bind(values, to: statement)
        guard sqlite3_step(statement) == SQLITE_ROW else { throw failure("could not be read") }
        return sqlite3_column_int64(statement, 0)
    }

    /// The sentence for a failed statement: a full disk says so, since that is what the user can fix.
    func failure(_ what: String) -> EditJournalError {
        let code = sqlite3_errcode(db) & 0xFF
        if code == SQLITE_FULL || (code == SQLITE_IOERR && errno == ENOSPC) {
            return EditJournalError("The disk is full: the edit was not saved (the edits saved before are kept in \(path)).")
        }
        return EditJournalError("The edit journal \(path) \(what) (\(String(cString: sqlite3_errmsg(db)))).")
    }
}
