import Foundation
import SharedTestData
import Testing
@testable import TileFormats

@Suite(.enabled(if: SharedData.available, SharedData.skipMessage))
struct RealWorldTileTests {
    static var norwayTiles: [URL] {
        let folder = SharedData.url("vector/mvt-real-world/norway")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".mvt") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test func everyNorwayTileDecodesCleanly() throws {
        let tiles = Self.norwayTiles
        #expect(tiles.count == 32)
        var features = 0
        for url in tiles {
            let tile = try MVTTile(decoding: try Data(contentsOf: url))
            #expect(!tile.layers.isEmpty, "\(url.lastPathComponent)")
            for layer in tile.layers {
                features += layer.features.count
                let broken = layer.features.filter { $0.geometryError != nil }
                #expect(broken.isEmpty, "\(url.lastPathComponent) \(layer.name): \(broken.first?.geometryError.map { "\($0)" } ?? "")")
                for feature in layer.features where feature.type != .unknown && !feature.commands.isEmpty {
                    #expect(feature.geometry.partEnds.last == feature.geometry.points.count)
                }
            }
        }
        #expect(features > 1000)
    }

    @Test func streetsTileHasItsUsualLayersAndProperties() throws {
        let url = try #require(Self.norwayTiles.first)
        let tile = try MVTTile(decoding: try Data(contentsOf: url))
        let names = Set(tile.layers.map(\.name))
        #expect(names.contains("water") || names.contains("landuse") || names.contains("road"), "\(names)")
        let roads = tile.layers.first { !$0.features.isEmpty && !$0.keys.isEmpty }!
        let props = roads.properties(of: roads.features[0])
        #expect(!props.isEmpty)
    }
}
