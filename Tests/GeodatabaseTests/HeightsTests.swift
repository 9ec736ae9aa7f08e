import ArcGISModel
import CSQLite
import Foundation
@testable import Geodatabase
import Geometry
import MapbookCore
import Testing

/// Shapes with heights (Z) or measures (M), and multipoints: read, kept, and drawn flat; a layer
/// of a kind mapbook does not draw is said in words.
struct HeightsTests {
    /// Heights to the millimetre, from 100 km below the grid's origin.
    static let grid = CoordinateGrid(originX: -20_037_700, originY: -30_241_100, scale: 10_000, originZ: -100_000, scaleZ: 1_000)
    static let withZ = ShapeLayout(hasZ: true)

    @Test func aLineKeepsItsHeightsInOrder() throws {
        let line: [(x: Double, y: Double)] = [(-7_800_000, 5_400_000), (-7_799_000, 5_401_000), (-7_798_500, 5_401_500)]
        let blob = ShapeBlob.encode(.polyline([line]), grid: Self.grid, srid: 3857, z: [12.5, 13.25, 11.001])
        let decoded = try ShapeBlob.decode(blob, grid: Self.grid, layout: Self.withZ)
        guard case .polyline(let parts) = decoded.shape else { Issue.record("not a line: \(decoded.shape)"); return }
        #expect(parts.count == 1 && parts[0].count == 3)
        #expect(zip(decoded.z ?? [], [12.5, 13.25, 11.001]).allSatisfy { abs($0 - $1) < 1e-6 } && decoded.z?.count == 3)
        #expect(decoded.m == nil)
    }

    @Test func theDummyPointBetweenPartsHasNoHeight() throws {
        func square(_ cx: Double, _ r: Double) -> [(x: Double, y: Double)] {
            [(cx - r, 5_400_000 - r), (cx + r, 5_400_000 - r), (cx + r, 5_400_000 + r), (cx - r, 5_400_000 + r), (cx - r, 5_400_000 - r)]
        }
        let heights = [1.0, 2, 3, 4, 1, 10, 20, 30, 40, 10]
        let blob = ShapeBlob.encode(.polygon([square(-7_800_000, 500), square(-7_790_000, 500)]), grid: Self.grid, srid: 3857, z: heights)
        let decoded = try ShapeBlob.decode(blob, grid: Self.grid, layout: Self.withZ)
        guard case .polygon(let rings) = decoded.shape else { Issue.record("not a polygon"); return }
        #expect(rings.count == 2)
        #expect(decoded.z.map { zip($0, heights).allSatisfy { abs($0 - $1) < 1e-6 } && $0.count == 10 } == true)
    }

    @Test func aLayerWithHeightsWhoseShapesHoldNoneIsDrawnFlat() throws {
        let blob = ShapeBlob.encode(.point(x: -7_800_000, y: 5_400_000), grid: Self.grid, srid: 3857)
        let decoded = try ShapeBlob.decode(blob, grid: Self.grid, layout: Self.withZ)
        guard case .point = decoded.shape else { Issue.record("not a point"); return }
        #expect(decoded.z == nil)
    }

    @Test func heightsInALayoutNotKnownLeaveTheShapeDrawnWithoutThem() throws {
        var blob = ShapeBlob.encode(.point(x: -7_800_000, y: 5_400_000), grid: Self.grid, srid: 3857)
        // Three bytes more than the points, counted by the stream's length: not one varint per point.
        blob += [0x01, 0x02, 0x03]
        blob[10] += 3
        let decoded = try ShapeBlob.decode(blob, grid: Self.grid, layout: Self.withZ)
        guard case .point(let x, _) = decoded.shape else { Issue.record("not a point"); return }
        #expect(abs(x + 7_800_000) < 1e-3)
        #expect(decoded.z == nil)
        // The same bytes in a layer without heights are damage.
        #expect(throws: ShapeBlobError.self) { try ShapeBlob.decode(blob, grid: Self.grid) }
    }

    @Test func heightsKeptAfterTheStreamItsLengthCountsAreRead() throws {
        // Another writer's layout: the stream's length counts x and y only, heights follow it.
        let blob = ShapeBlob.encode(.point(x: -7_800_000, y: 5_400_000), grid: Self.grid, srid: 3857)
        var height: [UInt8] = []
        ShapeBlob.appendSigned(Int64((321.5 + 100_000) * 1_000), to: &height)
        let decoded = try ShapeBlob.decode(blob + height, grid: Self.grid, layout: Self.withZ)
        #expect(decoded.z.map { abs($0[0] - 321.5) < 1e-6 } == true)
        #expect(throws: ShapeBlobError.self) { try ShapeBlob.decode(blob + height, grid: Self.grid) }
    }

    @Test func multipointsAreDrawnAsTheirPoints() throws {
        for count in [2, 12] {
            let points: [(x: Double, y: Double)] = (0..<count).map { index in
                let step = Double(index)
                return (x: -7_800_000 + step * 100, y: 5_400_000 + step * 50)
            }
            let blob = ShapeBlob.encode(.multipoint(points), grid: Self.grid, srid: 3857)
            let decoded = try ShapeBlob.decode(blob, grid: Self.grid, layout: ShapeLayout(isMultipoint: true))
            guard case .multipoint(let read) = decoded.shape else { Issue.record("\(count): not a multipoint"); continue }
            let near = zip(read, points).allSatisfy { (a: (x: Double, y: Double), b: (x: Double, y: Double)) -> Bool in
                abs(a.x - b.x) < 1e-3 && abs(a.y - b.y) < 1e-3
            }
            #expect(read.count == count && near)
        }
    }

    @Test func aShapeOfAnotherKindIsNamedInWordsNotCodes() {
        var blob = ShapeBlob.encode(.point(x: 0, y: 0), grid: Self.grid, srid: 3857)
        blob[8] = 0x06; blob[9] = 0x0C
        do {
            _ = try ShapeBlob.decode(blob, grid: Self.grid)
            Issue.record("decoded")
        } catch let error as ShapeBlobError {
            #expect(error.kind == .cannotBeDrawn)
            #expect(!error.reason.contains("0c") && !error.reason.contains("code"), "\(error.reason)")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// A geodatabase whose point layer has Z: drawn, each feature's height kept, identify's card
    /// showing it, and a layer of curves refused in a sentence that says so.
    @Test func aGeodatabaseLayerWithHeightsOpensAndKeepsThem() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("heights-\(UUID().uuidString).geodatabase").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try GeodatabaseWriter(path: path, grid: Self.grid)
        let info = #"{"name": "Wells", "geometryType": "esriGeometryPoint", "hasZ": true, "objectIdField": "OBJECTID","#
            + #""fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}, {"name": "NAME", "type": "esriFieldTypeString"}]}"#
        try writer.addLayer(id: 0, table: "Wells", info: try JSONValue(parsing: Data(info.utf8)))
        let curves = #"{"name": "Arcs", "geometryType": "esriGeometryPolyline", "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}]}"#
        try writer.addLayer(id: 1, table: "Arcs", info: try JSONValue(parsing: Data(curves.utf8)))
        let well = WebMercator.projected(longitude: -69.5, latitude: 45.5)
        try writer.insert(into: "Wells", attributes: ["NAME": .string("North")], shape: .point(x: well.x, y: well.y), z: [87.125])
        try writer.finish()
        try Self.execute("UPDATE st_geometry_columns SET geometry_type = 9 WHERE f_table_name = 'Arcs'", in: path)

        let gdb = try Geodatabase(path: path)
        let wells = try #require(gdb.layers.first { $0.table == "Wells" })
        #expect(wells.cannotBeDrawn == nil && wells.layout.hasZ && !wells.layout.hasM)
        let read = try gdb.features(of: wells)
        #expect(read.features.count == 1 && read.skipped.damaged == 0)
        #expect(read.features.first?.z.map { abs($0[0] - 87.125) < 1e-6 } == true)
        let rows = PopupCard.measureRows(z: read.features.first?.z, m: nil)
        #expect(rows == [PopupCard.Row(label: "Height (Z)", value: "87.125")])
        let arcs = try #require(gdb.layers.first { $0.table == "Arcs" })
        #expect(arcs.cannotBeDrawn == "its shapes are curves, which mapbook does not draw")
    }

    @Test func aLineShowsTheRangeOfItsHeights() {
        #expect(PopupCard.measureRows(z: [12, .nan, 1_204.5, 3], m: [0, 10]) == [
            PopupCard.Row(label: "Height (Z)", value: "3 to 1,204.5"), PopupCard.Row(label: "Measure (M)", value: "0 to 10"),
        ])
        #expect(PopupCard.measureRows(z: [.nan], m: nil).isEmpty)
    }

    static func execute(_ sql: String, in path: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw CocoaError(.fileWriteUnknown)
        }
    }
}
