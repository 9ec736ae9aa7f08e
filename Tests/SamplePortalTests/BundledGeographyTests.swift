import Foundation
import MapbookCore
import SharedTestData
import Testing
@testable import MapbookAssets
import Geometry

@Suite struct BundledGeographyTests {
    /// Each bundled layer against the file it was derived from: the same features, in the order
    /// derive-assets writes, with the same names, at most half a 1e-5 degree away.
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage),
          arguments: [(MapbookAssets.Layer.state, "maine_state_cb2016_500k.geojson", "NAME"),
                      (.counties, "maine_counties_cb2016_500k.geojson", "NAME"),
                      (.region, "ne50m_admin1_maine_region.geojson", "name"),
                      (.places, "maine_places_geonames_cities1000.geojson", "name"),
                      (.countries, "world/ne_110m_countries.geojson", "name")])
    func matchesItsSource(_ layer: MapbookAssets.Layer, _ source: String, _ nameField: String) throws {
        let bundled = try MapbookAssets.features(layer)
        let original = try GeoJSON.features(from: Data(contentsOf: SharedData.url("outline/" + source)))
        #expect(bundled.count == original.count)
        // Names repeat (two Portlands would be fine): a feature matches the closest of its namesakes.
        let byName = Dictionary(grouping: original) { $0.property(nameField)?.string ?? "" }
        for feature in bundled {
            let name = try #require(feature.property("name")?.string)
            let namesakes = try #require(byName[name], "\(name) is not in \(source)")
            let distances = namesakes.compactMap { distance(feature.geometry, $0.geometry) }
            #expect((distances.min() ?? .infinity) <= 0.5e-5 + 1e-12, "\(name) moved or changed shape")
        }
    }

    @Test func placesKeepTheirPopulation() throws {
        let places = try MapbookAssets.features(.places)
        let portland = try #require(places.first { $0.property("name")?.string == "Portland" })
        #expect((portland.property("population")?.double ?? 0) > 60_000)
        guard case .points(let points) = portland.geometry, let point = points.first else { Issue.record("not a point"); return }
        #expect(abs(point.longitude + 70.25) < 0.1 && abs(point.latitude - 43.66) < 0.1)
    }

    @Test func readsTheFormatAndRefusesDamage() throws {
        // One feature, name "A", one point at (2e-5, -1e-5): the zigzag varints 4 and 1.
        let bytes: [UInt8] = Array("MBGF".utf8) + [1, 1, 1, 4] + Array("name".utf8) + [1, 1, UInt8(ascii: "A"), 1, 1, 4, 1]
        let features = try CompactFeatures.decode(Data(bytes))
        #expect(features == [GeoFeature(geometry: .points([GeoPoint(longitude: 2e-5, latitude: -1e-5)]),
                                        properties: [(key: "name", value: .string("A"))])])
        for cut in 0..<bytes.count {
            #expect(throws: CompactFeatures.Malformed.self) { try CompactFeatures.decode(Data(bytes[0..<cut])) }
        }
        #expect(throws: CompactFeatures.Malformed.self) { try CompactFeatures.decode(Data(bytes + [0])) }
        // A count larger than the bytes left is refused before anything is reserved for it.
        #expect(throws: CompactFeatures.Malformed.self) {
            try CompactFeatures.decode(Data(Array("MBGF".utf8) + [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]))
        }
    }

    /// The largest difference between corresponding points, in degrees; nil if the shapes differ.
    private func distance(_ a: GeoGeometry, _ b: GeoGeometry) -> Double? {
        let (p, q) = (points(a), points(b))
        guard p.count == q.count else { return nil }
        return zip(p, q).map { max(abs($0.longitude - $1.longitude), abs($0.latitude - $1.latitude)) }.max() ?? 0
    }

    private func points(_ geometry: GeoGeometry) -> [GeoPoint] {
        switch geometry {
        case .points(let p): p
        case .lines(let l): l.flatMap { $0 }
        case .polygons(let p): p.flatMap { $0.flatMap { $0 } }
        }
    }
}
