import ArcGISModel
import Foundation
import Geometry
import MapbookCore

/// A feature layer of a mobile geodatabase: where its rows are, how its shapes are stored, and its
/// description (the service's layer JSON kept in `GDB_ServiceItems`, or one made from its columns).
public struct GeodatabaseLayer: Sendable {
    /// The feature service's layer id (`GDB_ServiceItems.ItemId`); nil for a table without one.
    public let serviceLayerID: Int?
    public let table: String
    public let geometryColumn: String
    public let info: FeatureLayerInfo
    /// The layer's JSON from `GDB_ServiceItems`, for a map that overrides its renderer or popup.
    public let serviceItem: JSONValue?
    public let spatialReference: SpatialReference
    public let grid: CoordinateGrid
    /// Whether its shapes carry heights (Z) or measures (M), or are multipoints.
    public let layout: ShapeLayout
    /// Why none of its shapes can be drawn (another projection, curves), when so.
    public let cannotBeDrawn: String?
    /// The live rows: the `<table>_evw` view of a replica that keeps history, else the table.
    let rowSource: RowSource

    enum RowSource: Sendable {
        case table(onlyLive: Bool)
        case view(String)
    }
}

/// The shapes a read skipped, counted, with the first reason of each kind.
public struct SkippedShapes: Sendable, Equatable {
    public init() {}

    /// Shapes that broke their own rules (skipped, never drawn wrong).
    public var damaged = 0
    public var firstDamage: String?
    /// Shapes of a kind mapbook does not draw.
    public var undrawable = 0
    public var firstUndrawable: String?

    mutating func count(_ error: ShapeBlobError) {
        switch error.kind {
        case .damaged: damaged += 1; firstDamage = firstDamage ?? error.reason
        case .cannotBeDrawn: undrawable += 1; firstUndrawable = firstUndrawable ?? error.reason
        }
    }
}

/// A layer's features as read: the ones drawn, the shapes skipped, and whether it stopped at its
/// limit — the layer's own, or the file's (`stoppedBy` then says which).
public struct GeodatabaseFeatures: Sendable {
    public var features: [LayerFeature]
    public var skipped: SkippedShapes
    public var capped: Bool
    /// The file's limit that ended the reading, as a sentence; the features before it are kept.
    public var stoppedBy: String?
}

/// A mobile geodatabase (`.geodatabase`): the SQLite file ArcGIS Runtime and ArcGIS Pro write for
/// offline features (preplanned areas' replicas, mobile map packages). Read-only; never a write.
public final class Geodatabase {
    public let layers: [GeodatabaseLayer]
    /// The feature tables without a shape column, by name (listed, not drawn).
    public let tables: [String]
    /// Where its features were taken from, when it is a replica.
    public let replica: GeodatabaseReplica?
    private let file: SQLiteFile
    /// Whole tables read, by table and limit.
    private var wholeReads: [String: GeodatabaseFeatures] = [:]

    /// The far-future date replicas give a live row's `gdb_to_date` (9999-12-31 as a Julian day).
    static let liveRowJulianDay = 5_373_484.0

    /// The layer a map names by service layer id (`path`'s `itemId`); without an id, the only layer.
    public func layer(serviceLayerID id: Int?) -> GeodatabaseLayer? {
        guard let id else { return layers.count == 1 ? layers.first : nil }
        return layers.first { $0.serviceLayerID == id }
    }

    /// `limits` bound every read of the file together (time, bytes, features, vertices), so a file
    /// made to loop or to swell ends in a sentence saying which. `name` is what its sentences call
    /// it (a packaged copy's own file name means nothing).
    public init(path: String, name: String? = nil, limits: GeodatabaseLimits = .standard) throws {
        let name = TerminalText.sanitizedLine(name ?? URL(fileURLWithPath: path).lastPathComponent, maxLength: 80)
        do {
            file = try SQLiteFile(path: path, limits: limits)
            guard try file.has("st_geometry_columns", type: "table") else {
                throw GeodatabaseError("It is a SQLite database but not a mobile geodatabase (it has no st_geometry_columns).")
            }
            (layers, tables) = try Self.readLayers(file)
            replica = try Self.readReplica(file)
        } catch let error as GeodatabaseError {
            throw GeodatabaseError("\(name): \(error.sentence)")
        }
    }

    /// SQLite's own check of the file's pages and indexes (`PRAGMA quick_check`): nil when whole,
    /// else its first complaint.
    public func damage() throws -> String? {
        var problem: String?
        try file.rows("PRAGMA quick_check(1)") { row in
            if let text = row.text(0), text != "ok" { problem = text }
            return false
        }
        return problem
    }

    /// Whether the file starts as every SQLite database does: how a side-loaded geodatabase is
    /// told from a tile package, whatever its name.
    public static func isSQLite(path: String) -> Bool {
        guard let file = try? ReadableFile(path: path) else { return false }
        return file.read(at: 0, upTo: 16) == Data("SQLite format 3\u{0}".utf8)
    }

    // MARK: - Features

    /// The layer's live features, in longitude/latitude, at most `limit` of them (see `scan`);
    /// when the file's limits stop the reading, those read so far, saying so. A whole table is read
    /// once however many layers of a map name it (the copies share their storage).
    public func features(of layer: GeodatabaseLayer, within extent: GeoExtent? = nil, limit: Int = 250_000) throws -> GeodatabaseFeatures {
        let key = "\(layer.table)\u{0}\(limit)"
        if extent == nil, let earlier = wholeReads[key] { return earlier }
        let read = try readFeatures(of: layer, within: extent, limit: limit)
        if extent == nil { wholeReads[key] = read }
        return read
    }

    private func readFeatures(of layer: GeodatabaseLayer, within extent: GeoExtent?, limit: Int) throws -> GeodatabaseFeatures {
        var features: [LayerFeature] = [], capped = false
        var skipped = SkippedShapes()
        do {
            skipped = try scan(layer, within: extent) { feature in
                guard features.count < limit else { capped = true; return false }
                features.append(feature)
                return true
            }
        } catch let error as GeodatabaseError where error.isLimit {
            return GeodatabaseFeatures(features: features, skipped: skipped, capped: true, stoppedBy: error.sentence)
        }
        return GeodatabaseFeatures(features: features, skipped: skipped, capped: capped)
    }

    /// Hands each live feature to `each` as it is read (until it returns false), in longitude/
    /// latitude, with attributes as the service would send them (dates in epoch milliseconds); memory
    /// stays that of one row. `within` uses the spatial index when the table has one.
    /// `filter`, when given, is an SQL condition on the layer's columns (`--where`).
    public func scan(_ layer: GeodatabaseLayer, within extent: GeoExtent? = nil, filter: String? = nil,
                     _ each: (LayerFeature) -> Bool) throws -> SkippedShapes {
        var skipped = SkippedShapes()
        guard layer.cannotBeDrawn == nil, let toGeographic = layer.spatialReference.geographicPoint else { return skipped }
        let dateFields = Set(layer.info.fields.filter(\.isDate).map(\.name))
        let (sql, bounds) = try query(layer, within: extent, filter: filter)
        try file.rows(sql, binding: bounds) { row in
            var attributes: FeatureAttributes = [:]
            var shape: [UInt8]?, shapeIsNull = true
            for column in 0..<row.count {
                let name = row.name(column)
                if name.caseInsensitiveCompare(layer.geometryColumn) == .orderedSame {
                    shape = row.blob(column); shapeIsNull = row.isNull(column)
                    continue
                }
                if dateFields.contains(name), let day = row.double(column) {
                    attributes[name] = .number(((day - 2_440_587.5) * 86_400_000).rounded())
                } else {
                    attributes[name] = row.json(column)
                }
            }
            do {
                guard let shape else {
                    // No shape is a feature without one; a shape of text or a number is damage.
                    guard shapeIsNull || file.budget.isSpent else { throw ShapeBlobError.damaged("a shape is not a blob") }
                    try file.budget.take(feature: 0)
                    return each(LayerFeature(geometry: nil, attributes: attributes))
                }
                let decoded = try ShapeBlob.decode(shape, grid: layer.grid, layout: layer.layout)
                try file.budget.take(feature: decoded.shape.pointCount)
                let feature = try Self.feature(decoded, attributes: attributes, toGeographic: toGeographic)
                if let extent, let box = feature.extent, !box.intersects(extent) { return true }
                return each(feature)
            } catch let error as ShapeBlobError {
                skipped.count(error)
                return true
            }
        }
        return skipped
    }

    /// How many live rows the layer has.
    public func count(of layer: GeodatabaseLayer) throws -> Int {
        var count = 0
        try file.rows("SELECT count(*) FROM \(source(layer))") { row in
            count = Int(row.int(0) ?? 0)
            return false
        }
        return count
    }

    private func source(_ layer: GeodatabaseLayer) -> String {
        switch layer.rowSource {
        case .view(let view): return SQLiteFile.quoted(view)
        case .table(let onlyLive):
            let table = SQLiteFile.quoted(layer.table)
            return onlyLive ? "(SELECT * FROM \(table) WHERE gdb_to_date >= \(Self.liveRowJulianDay))" : table
        }
    }

    /// The rows to read: through the spatial index (an RTREE in the layer's coordinates) when an
    /// extent is asked for, the layer is Web Mercator or WGS 84 and its rows are the table's own.
    private func query(_ layer: GeodatabaseLayer, within extent: GeoExtent?, filter: String?) throws -> (String, [Double]) {
        let index = "st_spindex__\(layer.table)_\(layer.geometryColumn)"
        guard let extent, case .table(let onlyLive) = layer.rowSource, try file.has(index, type: "table"),
              let box = Self.box(extent, in: layer.spatialReference) else {
            return ("SELECT * FROM \(source(layer))" + (filter.map { " WHERE (\($0))" } ?? ""), [])
        }
        let live = onlyLive ? " AND t.gdb_to_date >= \(Self.liveRowJulianDay)" : ""
        return ("SELECT t.* FROM \(SQLiteFile.quoted(layer.table)) t JOIN \(SQLiteFile.quoted(index)) s ON s.pkid = t.rowid "
                + "WHERE s.minx <= ? AND s.maxx >= ? AND s.miny <= ? AND s.maxy >= ?\(live)" + (filter.map { " AND (\($0))" } ?? ""),
                [box.xmax, box.xmin, box.ymax, box.ymin])
    }

    /// The extent in the layer's own coordinates, for its spatial index: in a projected system (by
    /// PROJ) the box around a 5 × 5 grid of its points, widened by a tenth, since edges curve there.
    private static func box(_ extent: GeoExtent, in reference: SpatialReference) -> GeoExtent? {
        if reference.isWGS84 { return extent }
        if reference.isWebMercator {
            let sw = WebMercator.projected(longitude: extent.xmin, latitude: extent.ymin)
            let ne = WebMercator.projected(longitude: extent.xmax, latitude: extent.ymax)
            return GeoExtent(xmin: sw.x, ymin: sw.y, xmax: ne.x, ymax: ne.y)
        }
        guard let transform = try? CoordinateTransform.between(.wgs84, reference) else { return nil }
        let steps = (0...4).map { Double($0) / 4 }
        var xs = steps.flatMap { _ in steps.map { extent.xmin + (extent.xmax - extent.xmin) * $0 } }
        var ys = steps.flatMap { t in steps.map { _ in extent.ymin + (extent.ymax - extent.ymin) * t } }
        transform.transform(xs: &xs, ys: &ys)
        guard xs.allSatisfy(\.isFinite), ys.allSatisfy(\.isFinite), let xmin = xs.min(), let xmax = xs.max(),
              let ymin = ys.min(), let ymax = ys.max() else { return nil }
        let dx = (xmax - xmin) / 10, dy = (ymax - ymin) / 10
        return GeoExtent(xmin: xmin - dx, ymin: ymin - dy, xmax: xmax + dx, ymax: ymax + dy)
    }

    /// A decoded shape as a feature: in longitude and latitude, rings nested into polygons, the
    /// heights and measures in the order of the geometry's points (nesting may reorder rings).
    static func feature(_ decoded: DecodedShape, attributes: FeatureAttributes, toGeographic: (Double, Double) -> GeoPoint) throws -> LayerFeature {
        guard case .polygon(let stored) = decoded.shape, stored.count > 1, decoded.z != nil || decoded.m != nil else {
            return LayerFeature(geometry: try geometry(decoded.shape, toGeographic: toGeographic), attributes: attributes, z: decoded.z, m: decoded.m)
        }
        let rings = try stored.map { try convert($0, toGeographic: toGeographic) }
        let geometry = GeoGeometry.polygons(nesting: rings)
        guard case .polygons(let polygons) = geometry else { return LayerFeature(geometry: geometry, attributes: attributes) }
        // Each ring's values, found by the ring's place among those stored (rings are kept whole).
        var starts: [Int] = [], start = 0
        for ring in rings { starts.append(start); start += ring.count }
        var places = Dictionary(grouping: rings.indices) { rings[$0] }
        let order = polygons.joined().map { ring in
            let index = places[ring]?.first ?? 0
            places[ring]?.removeFirst()
            return starts[index] ..< starts[index] + rings[index].count
        }
        func reordered(_ values: [Double]?) -> [Double]? { values.map { values in order.flatMap { values[$0] } } }
        return LayerFeature(geometry: geometry, attributes: attributes, z: reordered(decoded.z), m: reordered(decoded.m))
    }

    private static func convert(_ part: [(x: Double, y: Double)], toGeographic: (Double, Double) -> GeoPoint) throws -> [GeoPoint] {
        try part.map { point in
            let p = toGeographic(point.x, point.y)
            guard p.longitude.isFinite, p.latitude.isFinite, abs(p.latitude) <= 90, abs(p.longitude) <= 540 else {
                throw ShapeBlobError.damaged("a point lies off the earth")
            }
            return p
        }
    }

    static func geometry(_ shape: StoredShape, toGeographic: (Double, Double) -> GeoPoint) throws -> GeoGeometry? {
        func convert(_ part: [(x: Double, y: Double)]) throws -> [GeoPoint] { try Self.convert(part, toGeographic: toGeographic) }
        switch shape {
        case .empty: return nil
        case .point(let x, let y): return .points(try convert([(x, y)]))
        case .multipoint(let points): return .points(try convert(points))
        case .polyline(let parts): return .lines(try parts.map(convert))
        case .polygon(let rings): return GeoGeometry.polygons(nesting: try rings.map(convert))
        }
    }
}
