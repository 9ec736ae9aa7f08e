import Foundation
import MapbookCore
import Testing
@testable import TileFormats
import Geometry

/// A small map: a square "county" with a hole, a road across it and two towns.
enum SampleFeatures {
    static func ring(_ corners: [(Double, Double)]) -> [GeoPoint] {
        corners.map { GeoPoint(longitude: $0.0, latitude: $0.1) }
    }

    static let layers: [VectorTiler.Layer] = [
        .init(name: "counties", features: [
            GeoFeature(id: 1, geometry: .polygons([[ring([(-70, 44), (-68, 44), (-68, 46), (-70, 46), (-70, 44)]),
                                                    ring([(-69.5, 44.5), (-69.5, 45), (-69, 45), (-69, 44.5), (-69.5, 44.5)])]]),
                       properties: [("name", .string("Square")), ("fips", .number(23019))]),
        ], zooms: 0...6),
        .init(name: "roads", features: [
            GeoFeature(id: 2, geometry: .lines([ring([(-71, 43.5), (-69, 45.1), (-67.5, 46.5)])]), properties: [("ref", .string("I-95"))]),
        ], zooms: 3...6),
        .init(name: "places", features: [
            GeoFeature(id: 3, geometry: .points([GeoPoint(longitude: -68.77, latitude: 44.80)]), properties: [("name", .string("Bangor"))]),
            GeoFeature(id: 4, geometry: .points([GeoPoint(longitude: -70.26, latitude: 43.66)]), properties: [("name", .string("Portland"))]),
        ], zooms: 0...6),
    ]

    static let style: JSONValue = .object([
        "version": .number(8),
        "sources": .object(["esri": .object(["type": .string("vector"), "url": .string("../../")])]),
        "layers": .array([
            .object(["id": .string("background"), "type": .string("background")]),
            .object(["id": .string("counties"), "type": .string("fill"), "source": .string("esri"), "source-layer": .string("counties")]),
            .object(["id": .string("roads"), "type": .string("line"), "source": .string("esri"), "source-layer": .string("roads"),
                     "minzoom": .number(3)]),
        ]),
    ])

    static func writer() -> VectorTilePackageWriter {
        VectorTilePackageWriter(name: "sample", title: "Sample <area>", snippet: "A & B",
                                extent: GeoExtent(xmin: -71, ymin: 43.5, xmax: -67.5, ymax: 46.5), style: style)
    }
}

@Suite struct VectorTilerTests {
    @Test func polygonIsClippedOrientedAndKeptInEveryTileItTouches() throws {
        let tiles = VectorTiler().tiles(for: SampleFeatures.layers)
        // At zoom 0 everything is in the one tile.
        let world = try #require(tiles[TileKey(z: 0, x: 0, y: 0)])
        #expect(world.layers.map(\.name) == ["counties", "places"])
        let county = world.layers[0].features[0]
        #expect(county.geometry.exteriorRings == [true, false])
        #expect(world.layers[0].properties(of: county)["fips"] == .int(23019))
        // Zoom 6: the square spans column 19 (x 19.56…19.91) and rows 22…23 (y 22.77…23.27).
        let z6 = tiles.keys.filter { $0.z == 6 && tiles[$0]!.layers.contains { $0.name == "counties" } }
        #expect(Set(z6.map(\.x)) == [19])
        #expect(Set(z6.map(\.y)) == [22, 23])
        for key in z6 {
            let layer = tiles[key]!.layers.first { $0.name == "counties" }!
            for p in layer.features[0].geometry.points {
                #expect(p.x >= -64 && p.x <= 4160 && p.y >= -64 && p.y <= 4160, "\(key) \(p)")
            }
            #expect(layer.features[0].geometry.exteriorRings.first == true)
        }
        #expect(!tiles.keys.contains { $0.z < 3 && tiles[$0]!.layers.contains { $0.name == "roads" } })
    }

    @Test func pointLandsInOneTileAtItsPlace() throws {
        let tiles = VectorTiler().tiles(for: SampleFeatures.layers)
        let holders = tiles.filter { $0.key.z == 6 && $0.value.layers.contains { $0.name == "places" && $0.features.contains { $0.id == 3 } } }
        #expect(holders.count == 1)
        let (key, tile) = try #require(holders.first)
        let point = tile.layers.first { $0.name == "places" }!.features.first { $0.id == 3 }!.geometry.points[0]
        // Back to longitude/latitude: within a tile unit of Bangor.
        let scale = Double(1 << 6) * 4096
        let x = (Double(key.x) * 4096 + Double(point.x)) / scale * 2 * WebMercator.originShift - WebMercator.originShift
        let y = WebMercator.originShift - (Double(key.y) * 4096 + Double(point.y)) / scale * 2 * WebMercator.originShift
        let geo = WebMercator.geographic(x: x, y: y)
        #expect(abs(geo.longitude - -68.77) < 0.002 && abs(geo.latitude - 44.80) < 0.002)
    }
}

@Suite struct VectorTilePackageWriterTests {
    @Test func writeThenReadIsExactAndDeterministic() throws {
        let tiles = VectorTiler().tiles(for: SampleFeatures.layers)
        let first = temporaryFile(".vtpk"), second = temporaryFile(".vtpk")
        defer { try? FileManager.default.removeItem(atPath: first); try? FileManager.default.removeItem(atPath: second) }
        try SampleFeatures.writer().write(tiles: tiles, to: first)
        try SampleFeatures.writer().write(tiles: tiles, to: second)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))

        let package = try TilePackage(path: first)
        #expect(package.info.kind == .vectorTilePackage)
        #expect(package.info.name == "Sample <area>")
        #expect(package.info.levels.map(\.zoom) == Array(0...6).map { $0 })
        let extent = try #require(package.info.fullExtent?.geographic)
        #expect(abs(extent.xmin - -71) < 1e-9 && abs(extent.ymax - 46.5) < 1e-9)
        var read = 0
        for level in package.info.levels {
            for p in try package.tilePositions(level: level.level) {
                let key = TileKey(z: level.level, x: p.column, y: p.row)
                #expect(try package.vectorTile(z: key.z, x: key.x, y: key.y) == tiles[key], "\(key)")
                read += 1
            }
        }
        #expect(read == tiles.count)
        let style = try #require(try package.style())
        #expect(style.layers.map(\.id) == ["background", "counties", "roads"])
        #expect(style.layers[2].sourceLayer == "roads" && style.layers[2].minZoom == 3)
    }
}
