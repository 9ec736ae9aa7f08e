import ArcGISModel
import Foundation
import Geometry
import MapbookCore

extension Geodatabase {
    /// A row of `st_geometry_columns`: a table's shape column and its spatial reference.
    struct GeometryColumn {
        let table: String
        let column: String
        /// ISO's codes: 1 point, 2/5 lines, 3/6 polygons, 4 multipoints; a thousand more with Z,
        /// two thousand with M, three with both.
        let type: Int
        /// 2 for x/y; 3 or 4 with Z or M.
        let dimension: Int
        let srid: Int

        /// The shape without Z or M.
        var flatType: Int { type % 1000 }
        var hasZ: Bool { [1, 3].contains(type / 1000) || (type < 1000 && dimension >= 3) }
        var hasM: Bool { [2, 3].contains(type / 1000) || (type < 1000 && dimension >= 4) }
    }

    /// The most layers read from one file, and the most text of their descriptions (`ItemInfo`,
    /// `AdvancedDrawingInfo`) parsed: real files have tens of layers of a few kilobytes each.
    static let mostLayers = 2_000
    static let mostDescribed = 32 << 20

    /// The layers: every table with a shape column, described by its service item when the file has
    /// one (a replica, a mobile map package), else by its columns.
    static func readLayers(_ file: SQLiteFile) throws -> ([GeodatabaseLayer], [String]) {
        var columns: [GeometryColumn] = []
        try file.rows("SELECT f_table_name, f_geometry_column, geometry_type, coord_dimension, srid FROM st_geometry_columns") { row in
            if let table = row.text(0), let column = row.text(1), !table.hasPrefix("GDB_") {
                columns.append(GeometryColumn(table: table, column: column, type: Int(row.int(2) ?? 0),
                                              dimension: Int(row.int(3) ?? 2), srid: Int(row.int(4) ?? 0)))
            }
            return columns.count < mostLayers
        }
        var items: [(id: Int, table: String, info: JSONValue)] = []
        if try file.has("GDB_ServiceItems", type: "table") {
            let advanced = try file.columns(of: "GDB_ServiceItems").contains { $0.name.caseInsensitiveCompare("AdvancedDrawingInfo") == .orderedSame }
            // Layer descriptions are parsed and kept: a few kilobytes each in real files, held to a total.
            var described = 0
            try file.rows("SELECT ItemId, DatasetName, ItemInfo\(advanced ? ", AdvancedDrawingInfo" : "") FROM GDB_ServiceItems WHERE ItemType = 1") { row in
                if let id = row.int(0), let table = row.text(1), let text = row.text(2) {
                    let pro = advanced ? row.text(3) : nil
                    described += text.utf8.count + (pro?.utf8.count ?? 0)
                    guard described <= mostDescribed else {
                        throw GeodatabaseError("Its layers' descriptions are larger than the \(Format.bytes(Int64(mostDescribed))) mapbook reads.", limit: true)
                    }
                    if let json = try? JSONValue(parsing: Data(text.utf8)) {
                        items.append((Int(clamping: id), table, withDrawing(json, advanced: pro.flatMap { try? JSONValue(parsing: Data($0.utf8)) })))
                    }
                }
                return items.count < mostLayers
            }
        }
        let definitions = try FeatureClassDefinition.read(from: file)
        var layers: [GeodatabaseLayer] = []
        for column in columns {
            let item = items.first { $0.table.caseInsensitiveCompare(column.table) == .orderedSame }
            layers.append(try layer(column, item: item.map { ($0.id, $0.info) }, definition: definitions[column.table.lowercased()], file: file))
        }
        // Service items first, in their layer order; tables found only by their shape column after.
        layers.sort { ($0.serviceLayerID ?? Int.max, $0.table) < ($1.serviceLayerID ?? Int.max, $1.table) }
        let tables = items.filter { item in !columns.contains { $0.table.caseInsensitiveCompare(item.table) == .orderedSame } }
            .map { $0.info["name"]?.string ?? $0.table }
        return (layers, tables)
    }

    /// A layer's JSON with a renderer mapbook can read: its classic `drawingInfo` when that has one,
    /// else the one in `AdvancedDrawingInfo` — Pro's, as CIM symbols in a classic renderer or a CIM
    /// renderer (read as the nearest classic one).
    static func withDrawing(_ info: JSONValue, advanced: JSONValue?) -> JSONValue {
        func isRead(_ renderer: FeatureRenderer) -> Bool { if case .unsupported = renderer.kind { false } else { true } }
        let classic = FeatureRenderer(json: info["drawingInfo"]?["renderer"])
        if let classic, isRead(classic) { return info }
        guard let advanced, var object = info.object else { return info }
        let drawing = advanced["drawingInfo"] ?? (advanced["renderer"] != nil ? advanced : .object(["renderer": advanced]))
        guard let renderer = FeatureRenderer(json: drawing["renderer"]), classic == nil || isRead(renderer) else { return info }
        var merged = info["drawingInfo"]?.object ?? [:]
        merged["renderer"] = drawing["renderer"]
        if merged["labelingInfo"]?.array.isEmpty ?? true { merged["labelingInfo"] = drawing["labelingInfo"] }
        object["drawingInfo"] = .object(merged)
        return .object(object)
    }

    private static func layer(_ column: GeometryColumn, item: (id: Int, info: JSONValue)?, definition: FeatureClassDefinition?,
                              file: SQLiteFile) throws -> GeodatabaseLayer {
        // The feature class's own definition first (Runtime- and Collector-made files keep its grid
        // only there), then the aux table.
        var (reference, grid) = try spatialReference(column.srid, file: file)
        if let definition {
            if let own = definition.grid { grid = own }
            if let code = definition.spatialReference { reference = code }
        }
        let tableColumns = try file.columns(of: column.table)
        let geometryType: FeatureGeometryType? = switch column.flatType {
        case 1: .point
        case 2, 5: .polyline
        case 3, 6: .polygon
        case 4: .multipoint
        default: nil
        }
        // Either says so: the definition's flags or the column's type and dimension.
        let layout = ShapeLayout(hasZ: column.hasZ || definition?.hasZ == true, hasM: column.hasM || definition?.hasM == true,
                                 isMultipoint: geometryType == .multipoint)
        var info = item.flatMap { FeatureLayerInfo(json: $0.info) }
            ?? FeatureLayerInfo(name: column.table, geometryType: geometryType ?? .point, fields: tableColumns.compactMap { field($0, shape: column.column) },
                                objectIDField: tableColumns.first { $0.name.caseInsensitiveCompare("OBJECTID") == .orderedSame }?.name,
                                displayField: tableColumns.first { $0.type.lowercased().hasPrefix("text") }?.name,
                                renderer: FeatureRenderer(kind: .simple, classes: [], defaultSymbol: nil))
        // An annotation class its definition names as one, without a service item that says so.
        if definition?.featureType == "esriFTAnnotation", let annotation = info.asAnnotation() { info = annotation }
        var problem: String?
        if geometryType == nil {
            let kind = switch column.flatType {
            case 8...12: "curves"
            case 15, 16: "3D surfaces (multipatches)"
            default: "neither points, lines nor polygons"
            }
            problem = "its shapes are \(kind), which mapbook does not draw"
        } else if let unusable = reference.problem {
            problem = unusable.clause(about: "it")
        } else if grid == nil {
            problem = definition?.gridProblem ?? "its coordinate grid (spatial reference \(column.srid)) is missing"
        }
        let view = "\(column.table)_evw"
        let rows: GeodatabaseLayer.RowSource = try file.has(view, type: "view") ? .view(view)
            : .table(onlyLive: tableColumns.contains { $0.name.caseInsensitiveCompare("gdb_to_date") == .orderedSame })
        return GeodatabaseLayer(serviceLayerID: item?.id, table: column.table, geometryColumn: column.column, info: info, serviceItem: item?.info,
                                spatialReference: reference, grid: grid ?? CoordinateGrid(originX: 0, originY: 0, scale: 1),
                                layout: layout, cannotBeDrawn: problem, rowSource: rows)
    }

    /// A column as a field: SQLite's declared types as the service's field types.
    private static func field(_ column: (name: String, type: String), shape: String) -> FeatureField? {
        guard column.name.caseInsensitiveCompare(shape) != .orderedSame else { return nil }
        let declared = column.type.lowercased()
        let type = switch true {
        case column.name.caseInsensitiveCompare("OBJECTID") == .orderedSame: "esriFieldTypeOID"
        case declared.contains("date"): "esriFieldTypeDate"
        case declared.hasPrefix("int"): "esriFieldTypeInteger"
        case declared.hasPrefix("float") || declared.hasPrefix("real") || declared.hasPrefix("double"): "esriFieldTypeDouble"
        case declared.contains("uuid") || declared.contains("guid"): "esriFieldTypeGUID"
        default: "esriFieldTypeString"
        }
        return FeatureField(name: column.name, type: type)
    }

    /// The spatial reference's EPSG code (and WKT, for a custom system) and coordinate grid, from
    /// `st_aux_spatial_reference_systems`.
    private static func spatialReference(_ srid: Int, file: SQLiteFile) throws -> (SpatialReference, CoordinateGrid?) {
        var found: (SpatialReference, CoordinateGrid?) = (SpatialReference(wkid: srid), nil)
        guard try file.has("st_aux_spatial_reference_systems", type: "table") else { return found }
        // Z and M columns are in every real file; a file without them is read on x and y alone.
        let columns = Set(try file.columns(of: "st_aux_spatial_reference_systems").map { $0.name.lowercased() })
        let hasZM = Set(["falsez", "zunits", "falsem", "munits"]).isSubset(of: columns)
        let zm = hasZM ? ", falsez, zunits, falsem, munits" : ""
        let text = columns.contains("srtext") ? "srtext" : "NULL"
        try file.rows("SELECT auth_srid, falsex, falsey, xyunits, \(text)\(zm) FROM st_aux_spatial_reference_systems WHERE srid = \(srid)") { row in
            let code = row.int(0).map { Int(clamping: $0) } ?? srid
            var grid = zip3(row.double(1), row.double(2), row.double(3)).map { CoordinateGrid(originX: $0, originY: $1, scale: $2) }
            if hasZM {
                grid?.originZ = row.double(5) ?? 0; grid?.scaleZ = row.double(6) ?? 1
                grid?.originM = row.double(7) ?? 0; grid?.scaleM = row.double(8) ?? 1
            }
            // A custom system's definition is its WKT ("UNKNOWN" when there is none).
            let wkt = row.text(4).flatMap { $0.isEmpty || $0 == "UNKNOWN" ? nil : $0 }
            found = (SpatialReference(wkid: code, wkt: wkt), grid)
            return false
        }
        return found
    }

    private static func zip3(_ a: Double?, _ b: Double?, _ c: Double?) -> (Double, Double, Double)? {
        guard let a, let b, let c else { return nil }
        return (a, b, c)
    }
}
