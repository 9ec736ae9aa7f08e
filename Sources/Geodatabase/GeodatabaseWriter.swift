import ArcGISModel
import CSQLite
import Foundation
import Geometry
import MapbookCore

/// Writes a mobile geodatabase as ArcGIS lays one out — the tables, `GDB_ServiceItems` with each
/// layer's JSON, `st_geometry_columns`, the coordinate grid in `st_aux_spatial_reference_systems`,
/// shape blobs and an `st_spindex__…` RTREE per layer — for the sample portal's areas and packages
/// and for benchmarks. Web Mercator only, on the grid of Esri's own sample. Through libsqlite3, in
/// one transaction; a file already at the path is replaced.
public final class GeodatabaseWriter {
    private let handle: OpaquePointer
    private var inserts: [String: (statement: OpaquePointer, columns: [String], index: String)] = [:]
    public let grid: CoordinateGrid
    /// The file's own id of its spatial reference (the blobs carry it), as ArcGIS numbers them.
    static let srid = 300_001

    /// Esri's sample's Web Mercator grid: 1/147,894,671.5 m from a false origin west and south of the world.
    public static let webMercatorGrid = CoordinateGrid(originX: -20_458_297.662189998, originY: -30_241_100, scale: 147_894_671.5174119)

    public init(path: String, grid: CoordinateGrid = webMercatorGrid) throws {
        try? FileManager.default.removeItem(atPath: path)
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw GeodatabaseError("\(URL(fileURLWithPath: path).lastPathComponent) cannot be written (\(reason)).")
        }
        handle = db
        self.grid = grid
        try execute("""
            PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;
            CREATE TABLE st_aux_spatial_reference_systems (srid INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, auth_name TEXT(256),
              auth_srid INT32, srtext TEXT(2048), falsex FLOAT64 NOT NULL, falsey FLOAT64 NOT NULL, xyunits FLOAT64 NOT NULL,
              falsez FLOAT64 DEFAULT 0.0, zunits FLOAT64 DEFAULT 1.0, falsem FLOAT64 DEFAULT 0.0, munits FLOAT64 DEFAULT 1.0,
              xycluster_tol FLOAT64, zcluster_tol FLOAT64, mcluster_tol FLOAT64, object_flags INT32 DEFAULT 1);
            CREATE TABLE st_geometry_columns (gcid INTEGER PRIMARY KEY AUTOINCREMENT, f_table_name CLOB NOT NULL,
              f_geometry_column CLOB NOT NULL, geometry_type INT32, coord_dimension INT32, srid INTEGER NOT NULL,
              spatial_index_type CLOB, CONSTRAINT gc_uk UNIQUE (f_table_name, f_geometry_column));
            CREATE TABLE GDB_ServiceItems (OBJECTID integer primary key not null, DatasetName text(1024), ItemType int32,
              ItemId int32, ItemInfo text(100000000), AdvancedDrawingInfo text(100000000));
            INSERT INTO st_aux_spatial_reference_systems (srid, auth_name, auth_srid, srtext, falsex, falsey, xyunits, falsez, zunits,
              falsem, munits, xycluster_tol)
              VALUES (\(Self.srid), 'EPSG', 3857, 'PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere"]', \(grid.originX), \(grid.originY), \(grid.scale),
                      \(grid.originZ), \(grid.scaleZ), \(grid.originM), \(grid.scaleM), 0.001);
            """)
    }

    deinit {
        for insert in inserts.values { sqlite3_finalize(insert.statement) }
        sqlite3_close_v2(handle)
    }

    /// A layer's table, from its layer JSON (`name`, `geometryType`, `hasZ`, `fields`): the object id
    /// field as the row id, the other fields as columns, a `Shape` column and its spatial index;
    /// `advancedDrawing` is Pro's symbology for it (`AdvancedDrawingInfo`), when given.
    public func addLayer(id: Int, table: String, info: JSONValue, advancedDrawing: JSONValue? = nil) throws {
        let hasZ = info["hasZ"]?.bool ?? false
        let flatType: Int = switch info["geometryType"]?.string {
        case "esriGeometryPoint": 1
        case "esriGeometryMultipoint": 4
        case "esriGeometryPolyline": 5
        case "esriGeometryPolygon": 6
        default: throw GeodatabaseError("A layer of \(info["geometryType"]?.string ?? "no") geometry cannot be written.")
        }
        let fields = (info["fields"]?.array ?? []).compactMap { field -> (String, String)? in
            guard let name = field["name"]?.string, name.caseInsensitiveCompare("Shape") != .orderedSame else { return nil }
            let type: String = switch field["type"]?.string {
            case "esriFieldTypeOID": "integer primary key not null"
            case "esriFieldTypeInteger", "esriFieldTypeSmallInteger": "int32"
            case "esriFieldTypeDouble", "esriFieldTypeSingle": "float64"
            case "esriFieldTypeDate": "realdate"
            default: "text"
            }
            return (name, type)
        }
        // ISO's codes: a thousand more for shapes with Z.
        let geometryType = flatType + (hasZ ? 1000 : 0)
        let columns = fields.map { "\(quoted($0.0)) \($0.1)" } + ["Shape geometryblob"]
        let index = "st_spindex__\(table)_Shape"
        try execute("""
            CREATE TABLE \(quoted(table)) (\(columns.joined(separator: ", ")));
            CREATE VIRTUAL TABLE \(quoted(index)) USING RTREE (pkid, minx, maxx, miny, maxy);
            INSERT INTO st_geometry_columns (f_table_name, f_geometry_column, geometry_type, coord_dimension, srid, spatial_index_type)
              VALUES (\(literal(table)), 'Shape', \(geometryType), \(hasZ ? 3 : 2), \(Self.srid), 'RTREEXY');
            INSERT INTO GDB_ServiceItems (DatasetName, ItemType, ItemId, ItemInfo, AdvancedDrawingInfo)
              VALUES (\(literal(table)), 1, \(id), \(literal(try text(info))), \(try advancedDrawing.map { literal(try text($0)) } ?? "NULL"));
            """)
        let names = fields.map(\.0) + ["Shape"]
        var statement: OpaquePointer?
        let sql = "INSERT INTO \(quoted(table)) (\(names.map(quoted).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure() }
        inserts[table] = (statement, names, index)
    }

    /// One feature: its attributes by field name (dates in epoch milliseconds), its shape in Web
    /// Mercator metres, with its points' heights for a layer that has Z. The object id is the
    /// attribute of the object id field, else the next one.
    public func insert(into table: String, attributes: [String: JSONValue], shape: StoredShape, z: [Double]? = nil) throws {
        guard let insert = inserts[table] else { throw GeodatabaseError("No layer \(table) has been added.") }
        let statement = insert.statement
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, name) in insert.columns.enumerated() {
            let position = Int32(offset + 1)
            if name == "Shape" {
                let blob = ShapeBlob.encode(shape, grid: grid, srid: Self.srid, z: z)
                _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT_SWIFT) }
                continue
            }
            switch attributes[name] {
            case .number(let value)?:
                if value == value.rounded(), abs(value) < 1e15 { sqlite3_bind_int64(statement, position, Int64(value)) } else { sqlite3_bind_double(statement, position, value) }
            case .string(let text)?: sqlite3_bind_text(statement, position, text, -1, SQLITE_TRANSIENT_SWIFT)
            case .bool(let flag)?: sqlite3_bind_int64(statement, position, flag ? 1 : 0)
            default: sqlite3_bind_null(statement, position)
            }
        }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure() }
        guard let box = Self.extent(shape) else { return }
        try execute("INSERT INTO \(quoted(insert.index)) VALUES (\(sqlite3_last_insert_rowid(handle)), \(box.xmin), \(box.xmax), \(box.ymin), \(box.ymax))")
    }

    /// The replica's record, as a preplanned area's file carries it: a `GDB_Items` row of type
    /// "Sync Replica" (in the table's real columns) whose definition is the `<GPSyncReplica>` XML.
    public func addReplica(_ replica: GeodatabaseReplica) throws {
        try execute("""
            CREATE TABLE IF NOT EXISTS GDB_Items (ObjectID INTEGER PRIMARY KEY NOT NULL, UUID uuidtext NOT NULL, Type uuidtext NOT NULL,
              Name text(226), PhysicalName text(226), Path text(512), Url text(255), Properties int32, Defaults blob(52428800),
              DatasetSubtype1 int32, DatasetSubtype2 int32, DatasetInfo1 text(255), DatasetInfo2 text(255), Definition xmltext,
              Documentation xmltext, ItemInfo xmltext, Shape geometryblob);
            INSERT INTO GDB_Items (UUID, Type, Name, PhysicalName, Path, Properties, DatasetInfo1, Definition)
              VALUES (\(literal(replica.id ?? "{00000000-0000-0000-0000-000000000000}")), '\(GeodatabaseReplica.itemType)',
                      \(literal(replica.name ?? "Replica")), \(literal((replica.name ?? "Replica").uppercased())), \(literal(replica.name ?? "Replica")),
                      1, \(literal(replica.serviceURL)), \(literal(replica.xml)));
            """)
    }

    /// Commits what was written.
    public func finish() throws { try execute("COMMIT") }

    static func extent(_ shape: StoredShape) -> (xmin: Double, ymin: Double, xmax: Double, ymax: Double)? {
        let points: [(x: Double, y: Double)] = switch shape {
        case .empty: []
        case .point(let x, let y): [(x, y)]
        case .multipoint(let points): points
        case .polyline(let parts), .polygon(let parts): parts.flatMap { $0 }
        }
        guard let first = points.first else { return nil }
        return points.reduce((first.x, first.y, first.x, first.y)) { (min($0.0, $1.x), min($0.1, $1.y), max($0.2, $1.x), max($0.3, $1.y)) }
    }

    private func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let reason = message.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(message)
            throw GeodatabaseError("The geodatabase could not be written (\(reason)).")
        }
    }

    private func failure() -> GeodatabaseError {
        GeodatabaseError("The geodatabase could not be written (\(String(cString: sqlite3_errmsg(handle)))).")
    }

    private func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    private func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
    private func text(_ json: JSONValue) throws -> String { String(decoding: try JSONEncoder().encode(json), as: UTF8.self) }
}

/// SQLite copies the bytes bound with it (`SQLITE_TRANSIENT`, a macro Swift does not import).
nonisolated(unsafe) let SQLITE_TRANSIENT_SWIFT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
