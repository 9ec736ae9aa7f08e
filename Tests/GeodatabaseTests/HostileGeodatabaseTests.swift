import CSQLite
import Foundation
@testable import Geodatabase
import Geometry
import MapbookCore
import Testing

/// Geodatabases and shape blobs made to break the reader: each ends in a sentence (or a shape
/// skipped and counted), never a crash, a hang or a shape drawn wrong.
@Suite struct HostileGeodatabaseTests {
    /// Boston as usa.geodatabase stores it, and a two-part line made the same way.
    static let boston: [UInt8] = hex("64E19304010000000401100000000100000097A1F293A4D8CB069EECE1E39A9AD012")
    static let grid = CoordinateGrid(originX: -20_458_297.66219, originY: -30_241_100, scale: 147_894_671.517412)

    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }

    /// A polyline blob built by the layout the reader expects: `parts` of raw grid points.
    static func line(_ parts: [[(Int64, Int64)]]) -> [UInt8] {
        func signed(_ v: Int64) -> [UInt8] {
            var magnitude = UInt64(v.magnitude)
            var out = [UInt8(magnitude & 0x3F) | (v < 0 ? 0x40 : 0)]
            magnitude >>= 6
            while magnitude > 0 { out[out.count - 1] |= 0x80; out.append(UInt8(magnitude & 0x7F)); magnitude >>= 7 }
            return out
        }
        var points = parts[0]
        var starts: [Int] = []
        for part in parts.dropFirst() { points.append((-1, 0)); starts.append(points.count); points += part }
        var stream: [UInt8] = [], x: Int64 = 0, y: Int64 = 0
        for p in points { stream += signed(p.0 - x) + signed(p.1 - y); x = p.0; y = p.1 }
        var header: [UInt8] = [0x64, 0xE1, 0x93, 0x04] + withUnsafeBytes(of: UInt32(points.count).littleEndian, Array.init)
        header += [0x14, parts.count > 1 ? 0x44 : 0x04]
        if points.count > 10 {
            let real = parts.joined()
            header += signed(real.map(\.0).min()!) + signed(real.map(\.1).min()!) + signed(real.map(\.0).max()!) + signed(real.map(\.1).max()!)
        }
        if parts.count > 1 {
            header += signed(Int64(parts.count - 1))
            var previous = 0
            for start in starts { header += signed(Int64(start - previous)); previous = start }
        }
        header += signed(Int64(stream.count)) + [1, 0] + [1, 0, 0, 0]
        return header + stream
    }

    @Test func aWrittenLineReadsBack() throws {
        let blob = Self.line([[(0, 0), (10, 10)], [(20, 20), (30, 35)]])
        guard case .polyline(let parts) = try ShapeBlob.decode(blob, grid: CoordinateGrid(originX: 0, originY: 0, scale: 1)) else {
            Issue.record("not a line"); return
        }
        #expect(parts.map { $0.map(\.x) } == [[0, 10], [20, 30]])
    }

    /// Every truncation of a real blob and of a multi-part one: damaged, never a crash.
    @Test func everyTruncationIsDamage() {
        for blob in [Self.boston, Self.line([[(0, 0), (5, 5), (9, 1)], [(20, 20), (30, 35)]])] {
            for length in 0..<blob.count {
                #expect(throws: ShapeBlobError.self) { try ShapeBlob.decode(Array(blob.prefix(length)), grid: Self.grid) }
            }
        }
    }

    /// Every byte of a blob changed to every value: decoded (and then within its own checks) or
    /// refused, in bounded time.
    @Test func everyByteFlipEndsWell() {
        var parts: [[(Int64, Int64)]] = []
        for part in 0..<3 {
            parts.append((0..<6).map { i -> (Int64, Int64) in (Int64(part * 100 + i * 7), Int64(i * i)) })
        }
        let blob = Self.line(parts)
        var refused = 0
        for index in blob.indices {
            for value in [0x00, 0x01, 0x3F, 0x40, 0x7F, 0x80, 0xFF] as [UInt8] {
                var mutated = blob
                mutated[index] = value
                if (try? ShapeBlob.decode(mutated, grid: Self.grid)) == nil { refused += 1 }
            }
        }
        #expect(refused > blob.count)
    }

    @Test func liesAboutSizesAndPartsAreRefused() {
        func reason(_ blob: [UInt8]) -> String? {
            do { _ = try ShapeBlob.decode(blob, grid: Self.grid); return nil } catch let error as ShapeBlobError { return error.reason } catch { return "\(error)" }
        }
        // Ten million points claimed in 34 bytes: refused before anything is allocated.
        var many = Self.boston
        many.replaceSubrange(4..<8, with: [0x80, 0x96, 0x98, 0x00])
        #expect(reason(many) == "the shape claims 10000000 points in 34 bytes")
        // A stream length that points before the header, or past the blob.
        var early = Self.boston
        early[10] = 0x1E   // 30 of 34 bytes: the stream would start inside the header
        #expect(reason(early) == "its coordinate stream is not where its header says")
        // Part indexes that go back (a loop) or stand still.
        var back = Self.line([[(0, 0), (1, 1)], [(5, 5), (6, 6)], [(9, 9), (8, 8)]])
        let parts = back.firstIndex(of: 0x44)! + 1
        back[parts + 2] = 0x41   // the second start's delta becomes -1
        #expect(reason(back) == "its part indexes are out of order")
        // A varint that never ends.
        #expect(reason([0x64, 0, 0, 0, 2, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 40)) != nil)
        // A stored box the points do not fill.
        var box = Self.line([(0..<12).map { (Int64($0), Int64($0)) }])
        box[10] = 0x02   // xmin 0 → 2
        #expect(reason(box) == "its points lie outside its stored box")
        // A ring that does not close.
        var ring = Self.line([[(0, 0), (10, 0), (10, 10), (0, 0)]])
        ring[8] = 0x18; ring[9] = 0x08
        #expect(throws: Never.self) { try ShapeBlob.decode(ring, grid: Self.grid) }
        var open = Self.line([[(0, 0), (10, 0), (10, 10), (0, 1)]])
        open[8] = 0x18; open[9] = 0x08
        #expect(reason(open) == "a ring does not close")
        // Z values: named, not guessed.
        var z = Self.boston
        z[8] = 0x84; z.insert(0x01, at: 9)
        #expect(reason(z) != nil)
    }

    // MARK: - Whole files

    static func scratch(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-gdb-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try? FileManager.default.removeItem(atPath: path)
        return path
    }

    /// A minimal geodatabase: the tables the reader looks at, one Web Mercator line layer whose
    /// shapes are `shapes` (any SQLite value), and `extra` SQL after.
    static func write(_ path: String, shapes: [String], extra: String = "") throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw GeodatabaseError("open") }
        defer { sqlite3_close(db) }
        let rows = shapes.enumerated().map { "(\($0.offset + 1), 'Road \($0.offset + 1)', \($0.element))" }.joined(separator: ",")
        let sql = """
            CREATE TABLE st_geometry_columns (f_table_name, f_geometry_column, geometry_type, coord_dimension, srid);
            INSERT INTO st_geometry_columns VALUES ('Roads', 'Shape', 5, 2, 300001);
            CREATE TABLE st_aux_spatial_reference_systems (srid, auth_srid, falsex, falsey, xyunits);
            INSERT INTO st_aux_spatial_reference_systems VALUES (300001, 3857, -20037700, -30241100, 10000);
            CREATE TABLE Roads (OBJECTID integer primary key, NAME text, Shape blob);
            INSERT INTO Roads VALUES \(rows);
            \(extra)
            """
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw GeodatabaseError(String(cString: sqlite3_errmsg(db))) }
    }

    static func blobLiteral(_ bytes: [UInt8]) -> String { "x'" + bytes.map { String(format: "%02X", $0) }.joined() + "'" }

    @Test func filesThatAreNotGeodatabasesSaySo() throws {
        let junk = Self.scratch("junk.geodatabase")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: junk))
        #expect(throws: GeodatabaseError("junk.geodatabase: It is not a SQLite database.")) { try Geodatabase(path: junk) }
        let missing = Self.scratch("missing.geodatabase")
        #expect(throws: GeodatabaseError.self) { try Geodatabase(path: missing) }
        let plain = Self.scratch("plain.geodatabase")
        var db: OpaquePointer?
        sqlite3_open(plain, &db); sqlite3_exec(db, "CREATE TABLE t (a)", nil, nil, nil); sqlite3_close(db)
        #expect(throws: GeodatabaseError("plain.geodatabase: It is a SQLite database but not a mobile geodatabase (it has no st_geometry_columns).")) {
            try Geodatabase(path: plain)
        }
        // A truncated copy of a real file.
        if FileManager.default.fileExists(atPath: usaGeodatabase) {
            let cut = Self.scratch("cut.geodatabase")
            try Data(try Data(contentsOf: URL(fileURLWithPath: usaGeodatabase)).prefix(300_000)).write(to: URL(fileURLWithPath: cut))
            do {
                let gdb = try Geodatabase(path: cut)
                for layer in gdb.layers { _ = try? gdb.features(of: layer) }
            } catch let error as GeodatabaseError {
                #expect(!error.sentence.isEmpty && !error.sentence.contains("\n"))
            }
        }
    }

    /// Shapes of the wrong type, damaged and good ones in one table: the good drawn, the rest counted.
    @Test func wrongTypesAndDamagedShapesAreCountedNotDrawn() throws {
        let path = Self.scratch("mixed.geodatabase")
        let good = Self.line([[(1_000_000, 1_000_000), (2_000_000, 3_000_000)]])
        try Self.write(path, shapes: [Self.blobLiteral(good), "'text'", "42", "NULL", Self.blobLiteral(Array(good.dropLast(3))), "x''"])
        let gdb = try Geodatabase(path: path)
        let layer = try #require(gdb.layers.first)
        #expect(layer.info.geometryType == .polyline && layer.info.name == "Roads")
        let read = try gdb.features(of: layer)
        #expect(read.features.count == 2)   // the good one, and the one without a shape
        #expect(read.features.filter { $0.geometry != nil }.count == 1)
        #expect(read.skipped.damaged == 4)
        #expect(read.skipped.firstDamage == "a shape is not a blob")
    }

    /// A view made to run for ever ends after its time, in a sentence.
    @Test(.timeLimit(.minutes(1))) func aViewThatNeverEndsIsStopped() throws {
        let path = Self.scratch("loop.geodatabase")
        try Self.write(path, shapes: ["NULL"], extra: """
            CREATE VIEW Roads_evw AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS OBJECTID, NULL AS Shape FROM n WHERE i < 0;
            """)
        let gdb = try Geodatabase(path: path, limits: GeodatabaseLimits(statementSeconds: 1))
        let started = Date()
        #expect(throws: GeodatabaseError("Reading it took longer than 1 s and was stopped.")) { try gdb.features(of: gdb.layers[0]) }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    /// Replicas keep history: only the live rows (the `_evw` view, or `gdb_to_date` in the far future).
    @Test func onlyLiveRowsOfAReplicaAreRead() throws {
        let path = Self.scratch("replica.geodatabase")
        let shape = Self.blobLiteral(Self.line([[(1_000_000, 1_000_000), (2_000_000, 3_000_000)]]))
        try Self.write(path, shapes: [shape, shape], extra: """
            ALTER TABLE Roads ADD COLUMN gdb_to_date real;
            UPDATE Roads SET gdb_to_date = 5373484.5 WHERE OBJECTID = 1;
            UPDATE Roads SET gdb_to_date = 2460000.5 WHERE OBJECTID = 2;
            """)
        let gdb = try Geodatabase(path: path)
        #expect(try gdb.features(of: gdb.layers[0]).features.map { $0.attributes["NAME"] } == [.string("Road 1")])
        #expect(try gdb.count(of: gdb.layers[0]) == 1)
    }

    /// A layer in a coordinate system PROJ does not know is listed with why, not drawn in the wrong
    /// place; one PROJ knows (the British National Grid) is drawn.
    @Test func anUnknownProjectionIsNamed() throws {
        let path = Self.scratch("grid.geodatabase")
        try Self.write(path, shapes: ["NULL"], extra: "UPDATE st_aux_spatial_reference_systems SET auth_srid = 99999;")
        let gdb = try Geodatabase(path: path)
        #expect(gdb.layers[0].cannotBeDrawn == "it is in a coordinate system mapbook cannot use: wkid 99999 is not a coordinate system PROJ knows")
        let known = Self.scratch("bng.geodatabase")
        try Self.write(known, shapes: ["NULL"], extra: "UPDATE st_aux_spatial_reference_systems SET auth_srid = 27700;")
        let british = try Geodatabase(path: known)
        #expect(british.layers[0].cannotBeDrawn == nil && british.layers[0].spatialReference.summary == "OSGB36 / British National Grid (wkid 27700)")
    }
}

/// Rings whose orientation says nothing: holes found by containment.
@Suite struct RingNestingTests {
    static func square(_ x: Double, _ y: Double, _ size: Double) -> [GeoPoint] {
        // Counter-clockwise, as mobile geodatabases store outer rings and holes alike.
        [(x, y), (x + size, y), (x + size, y + size), (x, y + size), (x, y)].map { GeoPoint(longitude: $0.0, latitude: $0.1) }
    }

    @Test func aHoleGoesToTheRingAroundItAndAnIslandStandsAlone() {
        let outer = Self.square(0, 0, 10), hole = Self.square(2, 2, 3), island = Self.square(20, 0, 2), lake = Self.square(3, 3, 1)
        guard case .polygons(let polygons) = GeoGeometry.polygons(nesting: [hole, island, outer, lake]) else { Issue.record("no polygons"); return }
        // The outer ring with its hole; the island; the lake's island inside the hole stands alone.
        #expect(polygons.count == 3)
        #expect(polygons.contains { $0 == [outer, hole] })
        #expect(polygons.contains { $0 == [island] })
        #expect(polygons.contains { $0 == [lake] })
    }
}
