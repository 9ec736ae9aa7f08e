import Foundation
import Geodatabase
import Geometry
import MapbookCore
import SharedTestData
import Testing
import TileFormats

/// GDAL, a reader we did not write (Debian's `python3-gdal`), asked what it makes of a file.
enum GDAL {
    static let python = "/usr/bin/python3"

    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run("from osgeo import ogr; print('{}')", [])) != nil
    }()

    static let skipMessage: Comment = "needs ../shared/data and GDAL's Python bindings (scripts/setup installs python3-gdal)"

    /// Runs a Python script with arguments; its standard output read as JSON.
    static func run(_ script: String, _ arguments: [String]) throws -> JSONValue {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return try JSONValue(parsing: data)
    }

    /// A geodatabase table's live rows as GDAL's SQLite driver reads them (its `_evw` view when
    /// there is one): each row's fields by name, and the row's FID.
    static func rows(of path: String, table: String) throws -> [JSONValue] {
        try run("""
            import json, sys
            from osgeo import gdal, ogr
            gdal.PushErrorHandler('CPLQuietErrorHandler')
            ds = ogr.Open(sys.argv[1])
            layer = ds.GetLayerByName(sys.argv[2] + '_evw') or ds.GetLayerByName(sys.argv[2])
            defn = layer.GetLayerDefn()
            if defn.GetFieldIndex('gdb_to_date') >= 0: layer.SetAttributeFilter('gdb_to_date >= 5373484')
            rows = []
            for f in layer:
                rows.append({'fid': f.GetFID(), 'fields': {k: v for k, v in f.items().items()}})
            print(json.dumps(rows, default=str))
            """, [path, table]).array
    }

    /// What GDAL's GeoJSON driver makes of a file: each layer's geometry type and feature count.
    static func geoJSONLayers(_ path: String) throws -> [JSONValue] {
        try run("""
            import json, sys
            from osgeo import gdal, ogr
            gdal.PushErrorHandler('CPLQuietErrorHandler')
            ds = ogr.Open(sys.argv[1])
            print(json.dumps([{'name': l.GetName(), 'type': ogr.GeometryTypeToName(l.GetGeomType()), 'count': l.GetFeatureCount()}
                              for l in (ds.GetLayer(i) for i in range(ds.GetLayerCount()))]))
            """, [path]).array
    }

    /// Features per layer of one vector tile, by GDAL's MVT driver.
    static func mvtCounts(_ tile: Data, z: Int, x: Int, y: Int) throws -> [String: Int] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gdal-\(UUID()).mvt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try tile.write(to: URL(fileURLWithPath: path))
        let json = try run("""
            import json, sys
            from osgeo import gdal
            gdal.PushErrorHandler('CPLQuietErrorHandler')
            ds = gdal.OpenEx(sys.argv[1], gdal.OF_VECTOR, allowed_drivers=['MVT'], open_options=['X=' + sys.argv[2], 'Y=' + sys.argv[3], 'Z=' + sys.argv[4]])
            counts = {}
            for i in range(ds.GetLayerCount() if ds else 0):
                layer = ds.GetLayer(i)
                counts[layer.GetName()] = counts.get(layer.GetName(), 0) + layer.GetFeatureCount()
            print(json.dumps(counts))
            """, [path, String(x), String(y), String(z)])
        return (json.object ?? [:]).compactMapValues { $0.int(in: 0...Int.max) }
    }
}

/// Every real file in `../shared/data/real` read by mapbook and by GDAL: the same live rows and
/// attribute values for each geodatabase layer `package features` writes, GeoJSON GDAL reads as one
/// geometry type, and the same features per layer in every vector tile.
@Suite("Real files against GDAL", .enabled(if: SharedData.available && GDAL.available, GDAL.skipMessage))
struct GDALOracleTests {
    static let real = SharedData.url("real").path

    /// (file, mapbook's layer name, the table) for every drawable layer of the real geodatabases.
    static let layers = [
        ("appstudio_offlineSample.geodatabase", "Commercial Buildings", "Commercial_Buildings"),
        ("appstudio_offlineSample.geodatabase", "Residential Buildings", "Residential_Buildings"),
        ("appstudio_offlineSample.geodatabase", "Public Facilities", "Public_Facilities"),
        ("canyonlands_preplanned_area/p13/3b1fef0d-2cb0-4b6f-b526-9fe0a1ca3f69.geodatabase", "CNP_Roads", "CNP_Roads"),
        ("canyonlands_preplanned_area/p13/3b1fef0d-2cb0-4b6f-b526-9fe0a1ca3f69.geodatabase", "CNP_Trails", "CNP_Trails"),
    ]

    @Test func featuresAreGDALsRowsAndReadAsOneLayer() async throws {
        for (file, layer, table) in Self.layers {
            let path = Self.real + "/" + file
            let result = try await CLI.runAsync(["package", "features", path, "--layer", layer])
            #expect(result.status == 0, "\(layer): \(result.stderr)")
            let ours = try JSONValue(parsing: result.output)
            let features = ours["features"]?.array ?? []
            let theirs = try GDAL.rows(of: path, table: table)
            #expect(features.count == theirs.count, "\(layer): \(features.count) features, GDAL \(theirs.count)")
            // Attribute values field by field (dates aside: mapbook gives epoch milliseconds),
            // matched by the object id.
            let fields = (ours["fields"]?.array ?? []).filter { $0["type"]?.string != "esriFieldTypeDate" }.compactMap { $0["name"]?.string }
            let idField = ours["fields"]?.array.first { $0["type"]?.string == "esriFieldTypeOID" }?["name"]?.string
            for row in theirs {
                let id = idField.flatMap { row["fields"]?[$0]?.int64 } ?? row["fid"]?.int64
                guard let mine = features.first(where: { $0["id"]?.int64 == id }) else { Issue.record("\(layer): GDAL's row \(id ?? -1) is missing"); continue }
                for field in fields {
                    guard let theirValue = row["fields"]?[field] else { continue }
                    let mineValue = mine["properties"]?[field] ?? .null
                    let same = mineValue == theirValue || (mineValue.double != nil && theirValue.double.map { abs($0 - mineValue.double!) < 1e-9 } == true)
                    #expect(same, "\(layer) \(id ?? -1) \(field): mapbook \(mineValue), GDAL \(theirValue)")
                }
            }
            // GDAL reads the GeoJSON as one layer of one geometry type, every feature in it.
            let written = FileManager.default.temporaryDirectory.appendingPathComponent("\(table)-\(UUID()).geojson").path
            defer { try? FileManager.default.removeItem(atPath: written) }
            try result.output.write(to: URL(fileURLWithPath: written))
            let read = try GDAL.geoJSONLayers(written)
            #expect(read.count == 1 && read.first?["count"]?.int64 == Int64(features.count), "\(layer): \(read)")
            if !features.isEmpty {
                #expect(read.first?["type"]?.string.map { !$0.contains("Unknown") && !$0.contains("None") } == true, "\(layer): \(read)")
            }
        }
    }

    /// A State Plane file (NAD83(HARN) / Virginia North, US feet): every layer's WGS 84 positions
    /// within a metre of `ogr2ogr -t_srs EPSG:4326` of the same features in the file's own system
    /// (GDAL cannot read these shapes itself: `--crs EPSG:2924` writes them for it).
    @Test func aStatePlaneFileLandsWhereOgr2ogrPutsIt() async throws {
        let path = Self.real + "/ios_loudoun_anno.geodatabase"
        let layers = ["Address_PointsAnno", "Address_Points", "ParcelLinesAnno", "ParcelLines", "Buildings", "Road_Casings", "Forest", "Subdivisions"]
        for layer in layers {
            let wgs84 = try await CLI.runAsync(["package", "features", path, "--layer", layer])
            let plane = try await CLI.runAsync(["package", "features", path, "--layer", layer, "--crs", "EPSG:2924"])
            #expect(wgs84.status == 0 && plane.status == 0, "\(layer): \(wgs84.stderr) \(plane.stderr)")
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("\(layer)-\(UUID()).geojson").path
            let output = input + ".4326.geojson"
            defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: output) }
            try plane.output.write(to: URL(fileURLWithPath: input))
            let ogr2ogr = Process()
            ogr2ogr.executableURL = URL(fileURLWithPath: "/usr/bin/ogr2ogr")
            ogr2ogr.arguments = ["-f", "GeoJSON", "-t_srs", "EPSG:4326", "-lco", "COORDINATE_PRECISION=12", output, input]
            ogr2ogr.standardError = FileHandle.nullDevice
            try ogr2ogr.run()
            ogr2ogr.waitUntilExit()
            let ours = try Self.positions(JSONValue(parsing: wgs84.output))
            let theirs = try Self.positions(JSONValue(parsing: Data(contentsOf: URL(fileURLWithPath: output))))
            #expect(!ours.isEmpty && ours.count == theirs.count, "\(layer): \(ours.count) positions, ogr2ogr \(theirs.count)")
            let farthest = zip(ours, theirs).map { a, b in
                hypot((a.longitude - b.longitude) * 111_320 * cos(a.latitude * .pi / 180), (a.latitude - b.latitude) * 110_574)
            }.max() ?? .infinity
            #expect(farthest < 1, "\(layer): \(farthest) m from ogr2ogr's")
            // And in Loudoun County, Virginia.
            #expect(ours.allSatisfy { $0.longitude > -78 && $0.longitude < -77.2 && $0.latitude > 38.8 && $0.latitude < 39.4 }, "\(layer)")
        }
    }

    /// Every position of a GeoJSON collection, in order.
    static func positions(_ collection: JSONValue) -> [GeoPoint] {
        func walk(_ value: JSONValue) -> [GeoPoint] {
            let items = value.array
            if let x = items.first?.double, items.count >= 2, let y = items[1].double { return [GeoPoint(longitude: x, latitude: y)] }
            return items.flatMap(walk)
        }
        return (collection["features"]?.array ?? []).flatMap { walk($0["geometry"]?["coordinates"] ?? .null) }
    }

    /// A layer with heights: each feature's Z its third coordinate, which GDAL reads as a 3D layer.
    @Test func heightsAreTheThirdCoordinateGDALReads() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wells-\(UUID().uuidString).geodatabase").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try GeodatabaseWriter(path: path, grid: CoordinateGrid(originX: -20_037_700, originY: -30_241_100, scale: 10_000,
                                                                            originZ: -100_000, scaleZ: 1_000))
        let info = #"{"name": "Wells", "geometryType": "esriGeometryPoint", "hasZ": true, "objectIdField": "OBJECTID","#
            + #""fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}]}"#
        try writer.addLayer(id: 0, table: "Wells", info: try JSONValue(parsing: Data(info.utf8)))
        for (index, height) in [87.125, 90.5].enumerated() {
            let well = WebMercator.projected(longitude: -69.5 + Double(index) / 100, latitude: 45.5)
            try writer.insert(into: "Wells", attributes: [:], shape: .point(x: well.x, y: well.y), z: [height])
        }
        try writer.finish()
        let result = try await CLI.runAsync(["package", "features", path, "--layer", "Wells"])
        #expect(result.status == 0, "\(result.stderr)")
        let written = FileManager.default.temporaryDirectory.appendingPathComponent("wells-\(UUID()).geojson").path
        defer { try? FileManager.default.removeItem(atPath: written) }
        try result.output.write(to: URL(fileURLWithPath: written))
        let read = try GDAL.geoJSONLayers(written)
        #expect(read.first?["type"]?.string == "3D Point" && read.first?["count"]?.int64 == 2, "\(read)")
        let heights = try JSONValue(parsing: result.output)["features"]?.array.compactMap { $0["geometry"]?["coordinates"]?.array.last?.double }
        #expect(heights == [87.125, 90.5])
    }

    @Test func vectorTilesHoldWhatGDALReads() throws {
        let package = try TilePackage(path: Self.real + "/android_dodge_city.vtpk")
        var tiles = 0
        for level in package.info.levels {
            guard let z = level.zoom else { continue }
            for position in try package.tilePositions(level: level.level) {
                guard let data = try package.tile(z: z, x: position.column, y: position.row) else { continue }
                let raw = Deflate.isGzip(data) ? try Deflate.inflate(data, limit: 16 << 20) : data
                let ours = try MVTTile(decoding: raw)
                var counts: [String: Int] = [:]
                for layer in ours.layers { counts[layer.name, default: 0] += layer.features.count }
                let theirs = try GDAL.mvtCounts(raw, z: z, x: position.column, y: position.row)
                #expect(counts == theirs, "tile \(z)/\(position.column)/\(position.row)")
                tiles += 1
            }
        }
        #expect(tiles == 13)
    }
}
