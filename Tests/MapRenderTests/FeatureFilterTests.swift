import Foundation
@testable import MapRender
import MapSources
import MapbookCore
import SharedTestData
import TileFormats
import Testing

/// Compiled filters must answer exactly as the interpreter does: they replace it while drawing.
@Suite struct FeatureFilterTests {
    static func json(_ text: String) -> JSONValue { try! JSONValue(parsing: Data(text.utf8)) }

    /// Checks every filter against every feature of `layer`, compiled and interpreted; returns how
    /// many features passed, so a caller can see the filters were not all trivially false.
    @discardableResult
    static func expectSameAnswers(_ filters: [JSONValue?], _ layer: PreparedLayer, zoom: Double = 10,
                                  sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var passed = 0
        for json in filters {
            let compiled = FeatureFilter(json).bound(to: layer)
            for feature in layer.layer.features {
                let expected = StyleExpression.passes(json, FeatureContext(zoom: zoom, feature: feature, in: layer))
                let actual = compiled.passes(.init(type: feature.type, id: feature.id, tags: feature.tags), in: layer, zoom: zoom)
                if expected { passed += 1 }
                guard actual == expected else {
                    Issue.record("\(json.map { String(describing: $0) } ?? "nil") on feature \(feature.id ?? 0): compiled \(actual), interpreted \(expected)",
                                 sourceLocation: sourceLocation)
                    return passed
                }
            }
        }
        return passed
    }

    @Test func legacyFiltersAndExpressionsAgreeWithTheInterpreter() throws {
        var builder = MVTLayerBuilder(name: "roads")
        let line = MVTGeometry(points: [MVTPoint(x: 0, y: 0), MVTPoint(x: 10, y: 10)], partEnds: [2])
        let rows: [[(key: String, value: MVTValue)]] = [
            [("class", .string("primary")), ("lanes", .int(4)), ("name", .string("Main St"))],
            [("class", .string("secondary")), ("lanes", .uint(2)), ("oneway", .bool(true))],
            [("class", .string("4")), ("lanes", .double(4)), ("rank", .float(1.5))],
            [("lanes", .sint(-1))],
            [],
        ]
        for (i, properties) in rows.enumerated() {
            builder.add(id: i % 2 == 0 ? UInt64(i) : nil, type: i == 4 ? .point : .lineString, geometry: line, properties: properties)
        }
        let layer = PreparedLayer(builder.layer)
        let texts = [
            #"["==", "class", "primary"]"#, #"["!=", "class", "primary"]"#, #"["==", "class", 4]"#, #"["==", "lanes", 4]"#,
            #"["==", "missing", null]"#, #"["!=", "missing", null]"#, #"["==", "oneway", true]"#, #"["==", "class", "primary", "extra"]"#,
            #"["in", "class", "secondary", "primary"]"#, #"["!in", "class", "motorway", "primary"]"#, #"["in", "lanes", 2, 4]"#,
            #"["in", "class"]"#, #"["!in", "class"]"#, #"["in", "class", ["literal", "x"]]"#,
            #"["<", "lanes", 4]"#, #"["<=", "lanes", 4]"#, #"[">", "lanes", 2]"#, #"[">=", "class", "primary"]"#, #"["<", "class", 5]"#,
            #"["has", "name"]"#, #"["!has", "name"]"#, #"["has", "$id"]"#, #"["!has", "$type"]"#, #"["has", "name", "x"]"#,
            #"["==", "$type", "LineString"]"#, #"["in", "$type", "Point", "Polygon"]"#, #"["==", "$id", 2]"#, #"["<", "$id", 3]"#,
            #"["all"]"#, #"["any"]"#, #"["none"]"#, #"["all", true, ["has", "name"]]"#,
            #"["all", ["==", "class", "primary"], ["any", ["has", "x"], ["has", "name"]]]"#,
            #"["none", ["==", "class", "primary"], ["==", ["get", "lanes"], 2]]"#,
            #"["any", ["==", ["geometry-type"], "Point"], ["in", ["get", "class"], ["literal", ["4"]]]]"#,
            #"["==", ["get", "class"], "primary"]"#, #"["!", ["has", "ref"]]"#, #"["unknown-op", "class"]"#, #"["all", "class"]"#,
        ]
        let filters: [JSONValue?] = [nil, .bool(true), .bool(false), .number(1), .null] + texts.map { Self.json($0) }
        let passed = Self.expectSameAnswers(filters, layer)
        #expect(passed > 40, "the filters are not all trivially false")
    }

    /// Every filter of a real, dense style (basemap.de, 535 layers) against every feature of its
    /// source layer in two of the package's tiles.
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func aRealStylesFiltersAgreeWithTheInterpreter() async throws {
        let source = try PackageMapSource(path: SharedData.url("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk").path)
        var checked = 0
        // Two tiles of central Germany, dense enough; all 19 would take long in a debug build.
        for key in [TileKey(z: 7, x: 67, y: 42), TileKey(z: 7, x: 68, y: 42)] {
            guard let tile = try await source.tile(key), case .vector(let layers) = tile.content else {
                Issue.record("no vector tile at \(key)")
                continue
            }
            for styleLayer in source.style.layers where styleLayer.filter != nil {
                guard let name = styleLayer.sourceLayer, let layer = layers[name] else { continue }
                Self.expectSameAnswers([styleLayer.filter], layer, zoom: 7)
                checked += layer.layer.features.count
                // Seconds of work in a debug build: let other tests' tasks run in between.
                await Task.yield()
            }
        }
        #expect(checked > 10_000, "enough of the style was exercised")
    }
}
