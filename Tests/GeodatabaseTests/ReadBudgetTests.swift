import Foundation
@testable import Geodatabase
import MapbookCore
import Testing

/// A small file can compute huge values or endless rows from nothing (views, generated columns,
/// recursive queries): every read of one file together stays within its limits — bytes, features,
/// vertices, time — and the sentence says which one stopped it.
@Suite struct ReadBudgetTests {
    typealias Files = HostileGeodatabaseTests

    /// A road's shape: a line of `points` points.
    static func shape(points: Int) -> String {
        let line: [(Int64, Int64)] = (0..<points).map { i -> (Int64, Int64) in
            let x = Int64(1_000_000 + i * 10), y = Int64(1_000_000 + (i % 7) * 10)
            return (x, y)
        }
        return Files.blobLiteral(Files.line([line]))
    }

    /// `Roads_evw` answering `rows` rows of `columns`, computed from nothing.
    static func view(rows: Int, columns: String) -> String {
        "CREATE VIEW Roads_evw AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) SELECT i AS OBJECTID, \(columns) FROM n;"
    }

    @Test func hugeValuesMadeFromNothingStopAtTheBytesLimit() throws {
        let path = Files.scratch("swelling.geodatabase")
        // A hundred rows of 10 MB each from a 20 kB file: a gigabyte, were it all taken.
        try Files.write(path, shapes: ["NULL"], extra: Self.view(rows: 100, columns: "printf('%.*c', 10000000, 'x') AS NAME, NULL AS Shape"))
        let gdb = try Geodatabase(path: path)
        let read = try gdb.features(of: gdb.layers[0])
        #expect(read.stoppedBy == "Reading stopped: mapbook reads at most 192.0 MiB of text and shapes from one file.")
        #expect(read.capped && read.features.count == 20, "what was read before is kept: \(read.features.count)")
        // A single value past the largest SQLite is let make.
        let one = Files.scratch("one.geodatabase")
        try Files.write(one, shapes: ["NULL"], extra: Self.view(rows: 1, columns: "hex(zeroblob(20000000)) AS NAME, NULL AS Shape"))
        let single = try Geodatabase(path: one)
        #expect(throws: GeodatabaseError("It holds a value larger than the 16.0 MiB mapbook reads.")) { try single.features(of: single.layers[0]) }
    }

    @Test func featuresAndVerticesAreCountedAcrossTheFile() throws {
        let path = Files.scratch("many.geodatabase")
        try Files.write(path, shapes: ["NULL"], extra: Self.view(rows: 5_000, columns: "'Road' AS NAME, \(Self.shape(points: 3)) AS Shape"))
        let few = try Geodatabase(path: path, limits: GeodatabaseLimits(features: 1_200))
        let read = try few.features(of: few.layers[0])
        #expect(read.features.count == 1_200 && read.stoppedBy == "Reading stopped: mapbook reads at most 1,200 features from one file.")
        let thin = try Geodatabase(path: path, limits: GeodatabaseLimits(vertices: 100))
        let lines = try thin.features(of: thin.layers[0])
        #expect(lines.features.count == 33 && lines.stoppedBy == "Reading stopped: mapbook reads at most 100 shape vertices from one file.")
        // Streamed reads count too: the limit is the file's, not one call's.
        #expect(throws: GeodatabaseError("Reading stopped: mapbook reads at most 1,200 features from one file.", limit: true)) {
            _ = try few.scan(few.layers[0]) { _ in true }
        }
    }

    /// Five layers on views that never end: the file's time runs out once, not five statements'
    /// worth; and decoding shapes, outside SQLite, is timed as well.
    @Test(.timeLimit(.minutes(1))) func theTimeIsTheFilesNotEachStatements() throws {
        let path = Files.scratch("slow.geodatabase")
        var extra = "DELETE FROM st_geometry_columns;"
        for layer in 1...5 {
            extra += """
                INSERT INTO st_geometry_columns VALUES ('R\(layer)', 'Shape', 5, 2, 300001);
                CREATE TABLE R\(layer) (OBJECTID integer primary key, Shape blob);
                CREATE VIEW R\(layer)_evw AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS OBJECTID, NULL AS Shape FROM n WHERE i < 0;
                """
        }
        try Files.write(path, shapes: ["NULL"], extra: extra)
        let gdb = try Geodatabase(path: path, limits: GeodatabaseLimits(seconds: 1.5, statementSeconds: 1))
        let started = Date()
        let sentences = gdb.layers.map { layer in (try? gdb.features(of: layer)).map { $0.stoppedBy ?? "read" } ?? "failed" }
        #expect(Date().timeIntervalSince(started) < 15, "about a second and a half, not five")
        #expect(sentences.last == "Reading stopped: mapbook spends at most 2 s reading one file.", "\(sentences)")

        // A big line repeated endlessly: every row costs its decoding, which the file's clock sees.
        let decoding = Files.scratch("decoding.geodatabase")
        try Files.write(decoding, shapes: ["NULL"], extra: Self.view(rows: 100_000_000, columns: "'Road' AS NAME, \(Self.shape(points: 20_000)) AS Shape"))
        let repeated = try Geodatabase(path: decoding, limits: GeodatabaseLimits(seconds: 1, vertices: .max))
        let begun = Date()
        #expect(throws: GeodatabaseError("Reading stopped: mapbook spends at most 1 s reading one file.", limit: true)) {
            _ = try repeated.scan(repeated.layers[0]) { _ in true }
        }
        #expect(Date().timeIntervalSince(begun) < 15)
    }

    /// One shape of more points than any real one: not drawn, said in words, nothing allocated for
    /// it (the header's count is judged before the points are read).
    @Test func aShapeOfTooManyPointsIsNamedNotDrawn() throws {
        let count = ShapeBlob.mostPoints + 1
        let blob = [0x64, 0xE1, 0x93, 0x04] + withUnsafeBytes(of: UInt32(count).littleEndian, Array.init) + [UInt8](repeating: 0, count: 2 * count)
        #expect(throws: ShapeBlobError(kind: .cannotBeDrawn, reason: "a shape of 1,000,001 points, more than the 1,000,000 mapbook draws")) {
            try ShapeBlob.decode(blob, grid: Files.grid)
        }
    }

    /// Layer descriptions are parsed and kept: their text is held to a total.
    @Test func swollenLayerDescriptionsAreRefused() throws {
        let path = Files.scratch("described.geodatabase")
        try Files.write(path, shapes: ["NULL"], extra: """
            CREATE TABLE GDB_ServiceItems (ItemId integer, DatasetName text, ItemType integer, ItemInfo text);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5)
              INSERT INTO GDB_ServiceItems SELECT i, 'Roads', 1, '{"name":"' || printf('%.*c', 8000000, 'x') || '"}' FROM n;
            """)
        #expect(throws: GeodatabaseError("described.geodatabase: Its layers' descriptions are larger than the 32.0 MiB mapbook reads.")) {
            try Geodatabase(path: path)
        }
    }

    /// A table several layers name is read once: the second read costs nothing of the budget.
    @Test func aTableIsReadOnceHoweverManyLayersNameIt() throws {
        let path = Files.scratch("shared.geodatabase")
        try Files.write(path, shapes: ["NULL"], extra: Self.view(rows: 700, columns: "'Road' AS NAME, \(Self.shape(points: 2)) AS Shape"))
        let gdb = try Geodatabase(path: path, limits: GeodatabaseLimits(features: 1_000))
        for _ in 0..<10 {
            let read = try gdb.features(of: gdb.layers[0])
            #expect(read.features.count == 700 && read.stoppedBy == nil)
        }
    }
}
