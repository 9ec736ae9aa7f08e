import ArcGISModel
import Foundation
import Geodatabase
import Geometry
import MapSources
import MapbookCore
import MobilePackages
import Testing

/// Mobile map packages made to cost what no real one does: many layers naming one table, many
/// maps listed by name, maps of more layers than any real one.
@Suite struct HostileMobilePackageTests {
    /// An unpacked package of `maps` (entry name → map JSON) beside a geodatabase of `points` points.
    static func package(maps: [String: String], info: String? = nil, points: Int = 0) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mmpk-hostile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/p13", withIntermediateDirectories: true)
        for (entry, json) in maps { try Data(json.utf8).write(to: URL(fileURLWithPath: dir + "/" + entry)) }
        if let info { try Data(info.utf8).write(to: URL(fileURLWithPath: dir + "/package.info")) }
        if points > 0 {
            let writer = try GeodatabaseWriter(path: dir + "/p13/data.geodatabase")
            try writer.addLayer(id: 0, table: "Places", info: .object([
                "name": .string("Places"), "geometryType": .string("esriGeometryPoint"),
                "fields": .array([.object(["name": .string("OBJECTID"), "type": .string("esriFieldTypeOID")])]),
            ]))
            for i in 0..<points {
                let point = WebMercator.projected(longitude: -70 + Double(i % 500) * 0.001, latitude: 44 + Double(i / 500) * 0.001)
                try writer.insert(into: "Places", attributes: [:], shape: .point(x: point.x, y: point.y))
            }
            try writer.finish()
        }
        return dir
    }

    static func map(layers: Int, path: String = "file:./data.geodatabase?itemId=0") -> String {
        let layer = #"{"layerType":"ArcGISFeatureLayer","title":"Places","path":"\#(path)"}"#
        return #"{"map":{"operationalLayers":[\#(Array(repeating: layer, count: layers).joined(separator: ","))],"baseMap":{"baseMapLayers":[]}}}"#
    }

    /// A hundred layers over one table of 1,000 points: the map draws at most its budget of stored
    /// features in all (750,000; 10,000 here), and names the layers past it.
    @Test func manyLayersOverOneTableDrawWithinTheMapsBudget() throws {
        let path = try Self.package(maps: ["p13/many.mmap": Self.map(layers: 100)], points: 1_000)
        let package = try MobileMapPackage(path: path)
        let many = MobileMapLayers.open(package.maps[0], in: package, budget: GeodatabaseLayers.Budget(mostFeatures: 10_000))
        #expect(many.features.count == 10 && many.problems.count == 90)
        #expect(many.problems.first == "Places is not drawn: the map already draws 10,000 features, and mapbook draws at most 10,000 at once.")
    }

    /// Maps listed by name are put in order in linear time; a list naming many maps that are not
    /// there says so in a few sentences, not thousands.
    @Test(.timeLimit(.minutes(1))) func manyListedMapsAreOrderedQuickly() throws {
        var maps: [String: String] = [:]
        for i in 0..<1_000 { maps[String(format: "p13/m%04d.mmap", i)] = #"{"map":{"operationalLayers":[]},"item":{"title":"Map \#(i)"}}"# }
        let names = (500..<1_000).reversed().map { "Map \($0)" } + (0..<500).map { "Missing \($0)" }
        let info = #"{"title":"Many","maps":[\#(names.map { "\"\($0)\"" }.joined(separator: ","))]}"#
        let package = try MobileMapPackage(path: try Self.package(maps: maps, info: info))
        #expect(package.maps.map(\.name) == (500..<1_000).reversed().map { "Map \($0)" } + (0..<500).map { "Map \($0)" })
        #expect(package.problems.count == 11 && package.problems.last == "It lists 490 more maps it does not hold.")
    }

    /// A map naming more layers than the most mapbook reads: the rest are left out and named.
    @Test func aMapOfTooManyLayersIsCut() throws {
        let package = try MobileMapPackage(path: try Self.package(maps: ["p13/map.mmap": Self.map(layers: 1_500, path: "file:./none.geodatabase")]))
        let layers = package.layers(of: package.maps[0])
        #expect(layers.count == 1_001)
        #expect(layers.last?.data == .notDrawn("The map names 500 more layers than mapbook reads; they are not drawn."))
    }
}
