import CSQLite
import Editing
import Foundation
import MapbookCore
import SharedTestData
import Testing

/// The journal keeps every saved edit: across reopening, undo and redo, a refusal, two writers, a
/// damaged file (kept aside, never written over) and a journal from a newer mapbook (left alone).
@Suite("The edit journal")
struct EditJournalTests {
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-journal-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    static let sites = EditLayer(title: "Sites", serviceLayerURL: "https://example.com/arcgis/rest/services/Sites/FeatureServer/0")

    static func point(_ longitude: Double, _ latitude: Double) -> JSONValue {
        .object(["type": .string("Point"), "coordinates": .array([.number(longitude), .number(latitude)])])
    }

    @Test func aSavedEditIsThereAfterReopeningExactlyAsTyped() throws {
        let hostile = "Heron cove \u{1B}[2J\u{07} — ☂"
        let long = String(repeating: "x", count: 60_000)
        do {
            let journal = try EditJournal(areaFolder: folder)
            let first = try journal.save(FeatureEdit(kind: .add, layer: Self.sites, geometry: Self.point(-69.2, 44.3),
                                                     attributes: ["SITE_NAME": .string(hostile), "NOTES": .string(long), "COUNT": .number(3)]))
            let second = try journal.save(FeatureEdit(kind: .delete, layer: EditLayer(title: "Roads"), globalID: "{AAAA}", objectID: 42))
            #expect(first.sequence >= 1 && second.sequence > first.sequence)
        }
        let reopened = try EditJournal(areaFolder: folder)
        let edits = try reopened.all()
        #expect(edits.count == 2)
        #expect(edits[0].kind == .add && edits[0].layer == Self.sites && edits[0].geometry == Self.point(-69.2, 44.3))
        #expect(edits[0].attributes["SITE_NAME"] == .string(hostile) && edits[0].attributes["NOTES"] == .string(long))
        #expect(edits[0].globalID.hasPrefix("{") && edits[0].globalID.count == 38)
        #expect(edits[1].kind == .delete && edits[1].objectID == 42 && edits[1].layer.serviceLayerURL == nil && edits[1].status == .pending)
        #expect(reopened.keptAside == nil)
    }

    @Test func undoAndRedoGoBackAndForthAndASaveEndsRedo() throws {
        let journal = try EditJournal(areaFolder: folder)
        let a = try journal.save(FeatureEdit(kind: .add, layer: Self.sites, attributes: ["N": .string("a")]))
        let b = try journal.save(FeatureEdit(kind: .add, layer: Self.sites, attributes: ["N": .string("b")]))
        #expect(try journal.undo()?.sequence == b.sequence)
        #expect(try journal.undo()?.sequence == a.sequence)
        #expect(try journal.undo() == nil)
        #expect(try journal.unsynced().isEmpty)
        #expect(try journal.redo()?.sequence == a.sequence, "the one undone last comes back first")
        #expect(try journal.unsynced().map(\.sequence) == [a.sequence])
        _ = try journal.save(FeatureEdit(kind: .add, layer: Self.sites, attributes: ["N": .string("c")]))
        #expect(try journal.redo() == nil, "b cannot come back over c")
        #expect(try journal.all().compactMap { $0.attributes["N"]?.string } == ["a", "c"])
    }

    /// The count the library reads at every start creates, writes and moves nothing.
    @Test func theCountOfEditsWaitingIsReadWithoutTouchingTheFile() throws {
        #expect(EditJournal.unsyncedCount(areaFolder: folder) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "no journal started by counting")
        let journal = try EditJournal(areaFolder: folder)
        let first = try journal.save(FeatureEdit(kind: .add, layer: Self.sites))
        _ = try journal.save(FeatureEdit(kind: .add, layer: Self.sites))
        try journal.markSynced([first.sequence])
        #expect(EditJournal.unsyncedCount(areaFolder: folder) == 1)
        // A damaged one is left where it is for the area's opening to deal with.
        let other = folder + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: other + "/" + EditJournal.fileName))
        #expect(EditJournal.unsyncedCount(areaFolder: other) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: other) == [EditJournal.fileName])
    }

    @Test func aRefusedEditStaysWithItsReasonUntilDiscarded() throws {
        let journal = try EditJournal(areaFolder: folder)
        let a = try journal.save(FeatureEdit(kind: .update, layer: Self.sites, globalID: "{B}", attributes: ["N": .number(1)]))
        let b = try journal.save(FeatureEdit(kind: .add, layer: Self.sites))
        try journal.markRefused(a.sequence, reason: "Unable to find feature")
        try journal.markSynced([b.sequence])
        let unsynced = try journal.unsynced()
        #expect(unsynced.map(\.sequence) == [a.sequence] && unsynced.first?.status == .refused("Unable to find feature"))
        #expect(try journal.discard(b.sequence) == false, "a synced edit is history, not the user's to discard")
        #expect(try journal.discard(a.sequence) == true)
        #expect(try journal.unsynced().isEmpty && journal.all().count == 1)
    }

    @Test func writersOnOneAreaKeepEveryEdit() async throws {
        let folder = folder
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Each opens the journal as the others write: one held busy is waited for, never taken
            // for damaged and moved aside.
            for writer in 0..<4 {
                group.addTask {
                    let journal = try EditJournal(areaFolder: folder)
                    for index in 0..<20 {
                        try journal.save(FeatureEdit(kind: .add, layer: Self.sites, attributes: ["W": .number(Double(writer)), "I": .number(Double(index))]))
                    }
                }
            }
            try await group.waitForAll()
        }
        let edits = try EditJournal(areaFolder: folder).all()
        #expect(edits.count == 80 && Set(edits.map(\.sequence)).count == 80 && Set(edits.map(\.globalID)).count == 80)
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.contains("damaged") })
    }

    @Test func aDamagedJournalIsKeptAsideNeverWrittenOver() throws {
        let path = folder + "/" + EditJournal.fileName
        let garbage = Data("not a database, but someone's only copy".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        var kept = ""
        do {
            let journal = try EditJournal(areaFolder: folder)
            kept = try #require(journal.keptAside)
            #expect(kept.hasPrefix(path + ".damaged-"))
            #expect(FileManager.default.contents(atPath: kept) == garbage)
            try journal.save(FeatureEdit(kind: .add, layer: Self.sites))
            #expect(try journal.all().count == 1)
        }
        // Damaged again (closed, so its log is folded in) the same second: a second name, the
        // first kept file untouched.
        try Data("damaged twice".utf8).write(to: URL(fileURLWithPath: path))
        let again = try EditJournal(areaFolder: folder)
        let second = try #require(again.keptAside)
        #expect(second != kept && FileManager.default.contents(atPath: kept) == garbage)
        #expect(FileManager.default.contents(atPath: second) == Data("damaged twice".utf8))
    }

    /// The disk fills mid-save: that save is refused in a sentence that says so, every edit saved
    /// before is there, and once there is room again saving goes on.
    @Test func aFullDiskRefusesTheSaveAndKeepsTheRest() throws {
        let disk = folder + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        guard mountTmpfs(disk, size: "512k") else {
            print("skipped: a full disk needs a tmpfs, which needs root (mount -t tmpfs)")
            return
        }
        defer { umountTmpfs(disk) }
        let journal = try EditJournal(areaFolder: disk)
        var saved = 0
        var refusal: String?
        for index in 0..<400 {
            do {
                try journal.save(FeatureEdit(kind: .add, layer: Self.sites, attributes: ["I": .number(Double(index)), "NOTES": .string(String(repeating: "n", count: 8_000))]))
                saved += 1
            } catch {
                refusal = error.userSentence
                break
            }
        }
        #expect(saved > 5 && refusal?.hasPrefix("The disk is full: the edit was not saved") == true, "\(saved) saved, then: \(refusal ?? "no refusal")")
        #expect(try journal.all().count == saved)
        #expect(try EditJournal(areaFolder: disk).all().compactMap { $0.attributes["I"]?.double.map(Int.init) } == Array(0..<saved))
        #expect(mountTmpfs(disk, options: "remount,size=2m"))
        try journal.save(FeatureEdit(kind: .add, layer: Self.sites))
        #expect(try journal.all().count == saved + 1)
    }

    /// A journal of layout 1 (before the values before a change were kept) opens as it was, every
    /// edit readable, and takes the new column once.
    @Test func aJournalOfTheFirstLayoutIsBroughtForward() throws {
        let path = folder + "/" + EditJournal.fileName
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        let layoutOne = """
            CREATE TABLE edits (sequence INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL CHECK (kind IN ('add', 'update', 'delete')),
              layer_title TEXT NOT NULL, layer_url TEXT, global_id TEXT NOT NULL, object_id INTEGER, geometry TEXT, attributes TEXT NOT NULL,
              saved_at REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending', 'synced', 'refused', 'undone')), reason TEXT);
            INSERT INTO edits (kind, layer_title, global_id, object_id, attributes, saved_at, status) VALUES ('update', 'Sites', '{A}', 7, '{"NAME":"Dock"}', 1800000000, 'pending');
            PRAGMA user_version = 1;
            """
        #expect(sqlite3_exec(db, layoutOne, nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let journal = try EditJournal(areaFolder: folder)
        let old = try #require(try journal.all().first)
        #expect(old.attributes == ["NAME": .string("Dock")] && old.original == nil)
        let saved = try journal.save(FeatureEdit(kind: .update, layer: Self.sites, globalID: "{A}", objectID: 7, attributes: ["NAME": .string("Pier")],
                                                 original: ["NAME": .string("Dock")]))
        #expect(try EditJournal(areaFolder: folder).all().last?.original == ["NAME": .string("Dock")])
        #expect(saved.sequence == 2)
    }

    @Test func aJournalFromANewerMapbookIsLeftAlone() throws {
        do { _ = try EditJournal(areaFolder: folder).save(FeatureEdit(kind: .add, layer: Self.sites)) }
        let path = folder + "/" + EditJournal.fileName
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "PRAGMA user_version = 9", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        #expect(throws: EditJournalError.self) { try EditJournal(areaFolder: folder) }
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.contains("damaged") })
    }
}

/// Edits carried between devices: the document read back as written; adopting it twice adds
/// nothing; a change to a feature added there points at that feature here.
@Suite("Edits between devices")
struct EditExchangeTests {
    @Test func adoptingTheSameEditsTwiceAddsThemOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-exchange-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder + "/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/b", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let there = try EditJournal(areaFolder: folder + "/a")
        _ = try there.save(FeatureEdit(kind: .add, layer: EditJournalTests.sites))
        let added = try there.save(FeatureEdit(kind: .add, layer: EditJournalTests.sites, attributes: ["N": .string("x\u{1B}[2J")]))
        _ = try there.save(FeatureEdit(kind: .update, layer: EditJournalTests.sites, globalID: added.globalID, objectID: -added.sequence, attributes: ["N": .string("y")]))
        let document = EditExchange.document([("abc123", "Area", try there.unsynced())])
        let read = try EditExchange.read(Data(document.compactText.utf8))
        let written = try there.unsynced().map(\.globalID)
        #expect(read.count == 1 && read[0].edits.map(\.globalID) == written)
        #expect(read[0].edits[1].attributes["N"] == .string("x\u{1B}[2J"), "values carried exactly")
        let here = try EditJournal(areaFolder: folder + "/b")
        _ = try here.save(FeatureEdit(kind: .add, layer: EditJournalTests.sites))
        let first = try here.adopt(read[0].edits), second = try here.adopt(read[0].edits)
        #expect(first == (added: 3, alreadyHere: 0) && second == (added: 0, alreadyHere: 3))
        let adopted = try here.all()
        #expect(adopted.count == 4 && adopted[3].objectID == -adopted[2].sequence, "the change points at its added feature's number here")
        #expect(throws: EditJournalError.self) { try EditExchange.read(Data("[1,2]".utf8)) }
        #expect(throws: EditJournalError.self) { try EditExchange.read(Data(#"{"format":"mapbook edits","version":1,"areas":[{"area":"a/../b","edits":[]}]}"#.utf8)) }
    }
}
