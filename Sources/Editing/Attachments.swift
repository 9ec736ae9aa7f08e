import CSQLite
import Foundation
import MapbookCore

/// A file attached to a feature on this device (a photo of the site), kept in the area's
/// `attachments` folder and sent by the next sync with `addAttachment`.
public struct FeatureAttachment: Equatable, Sendable {
    public var id: Int64
    /// The edit it was saved with.
    public var edit: Int64
    public var layer: EditLayer
    /// The feature it belongs to, by GlobalID (found on the server by it, whatever its object id).
    public var featureGlobalID: String
    public var name: String
    public var contentType: String
    public var size: Int64
    /// The copy's file name in the area's `attachments` folder.
    public var file: String
    public var status: FeatureEdit.Status
}

/// A file as taken for attaching: checked, copied into the area, fsynced.
public struct KeptFile: Equatable, Sendable {
    public var name: String
    public var contentType: String
    public var size: Int64
    public var file: String

    /// The largest file attached: it is sent whole, in memory, as ArcGIS Online's default limit for
    /// an attachment is 10 MB.
    public static let largest: Int64 = 10 << 20
    public static let folder = "attachments"

    /// Copies `path` into the area's attachments folder, fsynced, before the edit that names it is
    /// saved: a regular, readable file of at most `largest` bytes, or one sentence why not.
    public static func keep(_ path: String, inArea areaFolder: String) throws -> KeptFile {
        let name = TerminalText.sanitizedLine(URL(fileURLWithPath: path).lastPathComponent, maxLength: 200)
        var info = stat()
        guard stat(path, &info) == 0 else { throw EditJournalError("\(name) cannot be attached: \(String(cString: strerror(errno))).") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw EditJournalError("\(name) cannot be attached: it is not a regular file.") }
        guard Int64(info.st_size) <= largest else {
            throw EditJournalError("\(name) cannot be attached: it is \(Format.bytes(Int64(info.st_size))), more than the \(Format.bytes(largest)) an attachment may be.")
        }
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.read(upToCount: Int(largest) + 1) else {
            throw EditJournalError("\(name) cannot be attached: it cannot be read.")
        }
        try? handle.close()
        guard Int64(data.count) <= largest else { throw EditJournalError("\(name) cannot be attached: it grew past \(Format.bytes(largest)) while read.") }
        let folder = areaFolder + "/" + folder
        let file = UUID().uuidString.lowercased() + "-" + name.filter { $0.isLetter || $0.isNumber || ".-_".contains($0) }.prefix(80)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let problem = durablyWrite(data, to: folder + "/" + file) {
            throw EditJournalError("\(name) could not be kept with the area: \(problem).")
        }
        return KeptFile(name: name.isEmpty ? "attachment" : name, contentType: contentType(of: name), size: Int64(data.count), file: file)
    }

    /// Written beside, fsynced, renamed into place, the folder fsynced: on disk before the edit that
    /// names it. The reason when it could not be (a full disk says so).
    static func durablyWrite(_ data: Data, to path: String) -> String? {
        let partial = path + ".part"
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        let written = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return fsync(fd) == 0
        }
        let failure = errno
        close(fd)
        guard written, rename(partial, path) == 0 else {
            unlink(partial)
            return failure == ENOSPC ? "the disk is full" : String(cString: strerror(failure))
        }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY)
        if folder >= 0 { fsync(folder); close(folder) }
        return nil
    }

    /// The type ArcGIS is told, from the name's extension.
    static func contentType(of name: String) -> String {
        switch URL(fileURLWithPath: name).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "heic": "image/heic"
        case "pdf": "application/pdf"
        case "txt": "text/plain"
        case "mp4": "video/mp4"
        case "m4a": "audio/mp4"
        default: "application/octet-stream"
        }
    }
}

extension EditJournal {
    static var layoutTwoTables: [String] { [attachmentsTable, serverChangesTable, replicasTable] }

    static let attachmentsTable = """
        CREATE TABLE IF NOT EXISTS attachments (
          id INTEGER PRIMARY KEY AUTOINCREMENT, edit INTEGER NOT NULL,
          layer_title TEXT NOT NULL, layer_url TEXT, feature_global_id TEXT NOT NULL,
          name TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL, file TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('pending', 'synced', 'refused')), reason TEXT)
        """

    /// The files kept for a saved edit, inside the transaction that saves it.
    func insertAttachments(_ files: [KeptFile], for edit: FeatureEdit) throws {
        for file in files {
            try run("""
                INSERT INTO attachments (edit, layer_title, layer_url, feature_global_id, name, content_type, size, file, status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')
                """, [.integer(edit.sequence), .text(edit.layer.title), edit.layer.serviceLayerURL.map(Value.text) ?? .null,
                      .text(edit.globalID), .text(file.name), .text(file.contentType), .integer(file.size), .text(file.file)])
        }
    }

    /// The files kept on this device for the feature with this GlobalID, of edits not undone.
    public func attachments(ofFeature globalID: String) throws -> [FeatureAttachment] {
        try attachments(where: "a.feature_global_id = ? COLLATE NOCASE AND (e.sequence IS NULL OR e.status != 'undone')", [.text(globalID)])
    }

    /// The attachments that wait for a sync: pending or refused, of edits not undone.
    public func unsyncedAttachments() throws -> [FeatureAttachment] {
        try attachments(where: "a.status IN ('pending', 'refused') AND (e.sequence IS NULL OR e.status != 'undone')")
    }

    /// A sync's outcome for attachments, in one transaction.
    public func recordAttachments(synced: [Int64], refused: [(id: Int64, reason: String)]) throws {
        guard !synced.isEmpty || !refused.isEmpty else { return }
        try transaction {
            for id in synced { try run("UPDATE attachments SET status = 'synced', reason = NULL WHERE id = ?", [.integer(id)]) }
            for (id, reason) in refused { try run("UPDATE attachments SET status = 'refused', reason = ? WHERE id = ?", [.text(reason), .integer(id)]) }
        }
    }

    private func attachments(where clause: String, _ values: [Value] = []) throws -> [FeatureAttachment] {
        let statement = try prepare("""
            SELECT a.id, a.edit, a.layer_title, a.layer_url, a.feature_global_id, a.name, a.content_type, a.size, a.file, a.status, a.reason
            FROM attachments a LEFT JOIN edits e ON e.sequence = a.edit WHERE \(clause) ORDER BY a.id
            """)
        defer { sqlite3_finalize(statement) }
        bind(values, to: statement)
        var found: [FeatureAttachment] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            func text(_ column: Int32) -> String { sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "" }
            let status: FeatureEdit.Status = switch text(9) {
            case "synced": .synced
            case "refused": .refused(text(10))
            default: .pending
            }
            found.append(FeatureAttachment(id: sqlite3_column_int64(statement, 0), edit: sqlite3_column_int64(statement, 1),
                                           layer: EditLayer(title: text(2), serviceLayerURL: sqlite3_column_type(statement, 3) == SQLITE_NULL ? nil : text(3)),
                                           featureGlobalID: text(4), name: text(5), contentType: text(6), size: sqlite3_column_int64(statement, 7),
                                           file: text(8), status: status))
        }
        return found
    }
}
