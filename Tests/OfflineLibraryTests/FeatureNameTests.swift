import ArcGISModel
import Foundation
import Geometry
import MapbookCore
@testable import OfflineLibrary
import Places
import Testing

/// An operational layer's features searched by their display field, without the network.
@Suite struct FeatureNameTests {
    static let info = FeatureLayerInfo(
        name: "Lakes", geometryType: .polygon,
        fields: [FeatureField(name: "NAME", type: "esriFieldTypeString"),
                 FeatureField(name: "KIND", type: "esriFieldTypeInteger", codedValues: ["1": "Pond", "2": "Lake"])],
        displayField: "NAME", renderer: FeatureRenderer(kind: .simple, classes: []))

    static func square(_ x: Double, _ y: Double) -> GeoGeometry {
        .polygons([[[GeoPoint(longitude: x, latitude: y), GeoPoint(longitude: x + 1, latitude: y), GeoPoint(longitude: x + 1, latitude: y + 0.5),
                     GeoPoint(longitude: x, latitude: y)]]])
    }

    @Test func featuresAreNamedByTheirDisplayFieldAndPlacedToBeFramed() throws {
        let features = [
            LayerFeature(geometry: Self.square(-69.9, 45.5), attributes: ["NAME": .string("Moosehead Lake"), "KIND": .number(2)]),
            LayerFeature(geometry: Self.square(-69, 46), attributes: ["NAME": .string("  ")]),
            LayerFeature(geometry: nil, attributes: ["NAME": .string("Nowhere Pond")]),
            LayerFeature(geometry: Self.square(-68, 44), attributes: ["NAME": .string("Jordan\u{1B}[31m Pond")]),
        ]
        let names = PlaceIndex.names(ofFeatures: features, info: Self.info, layer: "Lakes")
        #expect(names.map(\.name) == ["Moosehead Lake", "Jordan Pond"], "no blank name, no feature without a shape, escapes gone")
        let moosehead = try #require(names.first)
        #expect(moosehead.source == .feature && moosehead.layer == "Lakes" && moosehead.origin == "Lakes, a layer on this device")
        #expect(moosehead.point == GeoPoint(longitude: -69.4, latitude: 45.75), "an area's middle")
        #expect(moosehead.extent == GeoExtent(xmin: -69.9, ymin: 45.5, xmax: -68.9, ymax: 46), "framed whole")
        #expect(PlaceIndex(places: names).search("moose").map(\.name) == ["Moosehead Lake"])

        // A coded-value display field is searched by its names; a line sits at its middle vertex; a point has no extent.
        var kinds = Self.info
        kinds.displayField = "KIND"
        kinds.geometryType = .polyline
        let line = LayerFeature(geometry: .lines([(0..<5).map { GeoPoint(longitude: Double($0), latitude: 0) }]), attributes: ["KIND": .number(1)])
        let point = LayerFeature(geometry: .points([GeoPoint(longitude: 3, latitude: 4)]), attributes: ["KIND": .number(2)])
        let coded = PlaceIndex.names(ofFeatures: [line, point], info: kinds, layer: "Water")
        #expect(coded.map(\.name) == ["Pond", "Lake"])
        #expect(coded[0].point == GeoPoint(longitude: 2, latitude: 0) && coded[0].extent != nil)
        #expect(coded[1].point == GeoPoint(longitude: 3, latitude: 4) && coded[1].extent == nil)

        var unnamed = Self.info
        unnamed.displayField = nil
        #expect(PlaceIndex.names(ofFeatures: features, info: unnamed, layer: "Lakes").isEmpty, "no display field, nothing to search by")
    }

    /// A package labels a county once per tile: one result. Two features of one name are two.
    @Test func onePlaceIsSaidOnceAndTwoFeaturesTwice() {
        func at(_ lon: Double, _ source: PlaceName.Source, rank: Double = 7) -> PlaceName {
            PlaceName(name: "Aroostook", point: GeoPoint(longitude: lon, latitude: 46.7), rank: source == .feature ? 0 : rank, source: source)
        }
        let labels = PlaceIndex(places: [at(-68.0, .package, rank: 6), at(-68.15, .package), at(-68.3, .package), at(-69.0, .package)])
        #expect(labels.search("aroostook").map(\.point.longitude) == [-68.0, -69.0], "labels 11 and 23 km from the most prominent are it; 76 km away, another")
        let features = PlaceIndex(places: [at(-68.0, .feature), at(-68.01, .feature), at(-68.2, .package)])
        #expect(features.search("aroostook").map(\.source) == [.feature, .feature], "features 800 m apart are two; a label 15 km away is one of them")
    }

    /// A feature copy's names are kept beside it and read back the same, layer and extent too.
    @Test func aCopysNamesAreKeptBesideIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feature-names-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = #"""
            {"format": "mapbook-feature-copy", "title": "Lakes", "layer": {"name": "Lakes", "geometryType": "esriGeometryPolygon", "displayField": "NAME",
              "fields": [{"name": "NAME", "type": "esriFieldTypeString"}]},
             "features": [{"attributes": {"NAME": "Moosehead Lake"},
                           "geometry": {"rings": [[[-69.9, 45.5], [-68.9, 45.5], [-68.9, 46], [-69.9, 45.5]]]}}]}
            """#
        let path = folder + "/00.json"
        try Data(copy.utf8).write(to: URL(fileURLWithPath: path))
        let first = OfflineLibrary.placeNames(ofFeatureCopyAt: path)
        #expect(first.map(\.name) == ["Moosehead Lake"] && first.first?.layer == "Lakes" && first.first?.extent != nil, "\(first)")
        #expect(FileManager.default.fileExists(atPath: path + ".names"))
        #expect(OfflineLibrary.placeNames(ofFeatureCopyAt: path) == first, "read back from the kept file")
    }
}
