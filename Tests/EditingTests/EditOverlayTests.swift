import ArcGISModel
import Editing
import Geometry
import MapbookCore
import Testing

/// The area as shown with the user's edits: added features appear with object ids of their own, a
/// change takes its values and shape, a deletion removes; a synced edit stays shown (the area's
/// files are as downloaded), an undone one does not, and an add the data already holds is not drawn twice.
struct EditOverlayTests {
    static let info = FeatureLayerInfo(name: "Sites", geometryType: .point,
                                       fields: [FeatureField(name: "OBJECTID", type: "esriFieldTypeOID"), FeatureField(name: "GlobalID", type: "esriFieldTypeGlobalID"),
                                                FeatureField(name: "NAME", type: "esriFieldTypeString")],
                                       objectIDField: "OBJECTID", renderer: FeatureRenderer(kind: .unsupported(type: "none"), classes: [], defaultSymbol: nil))
    static let layer = EditLayer(title: "Sites")

    static func site(_ id: Int, _ name: String, at longitude: Double) -> LayerFeature {
        LayerFeature(geometry: .points([GeoPoint(longitude: longitude, latitude: 44)]), attributes: ["OBJECTID": .number(Double(id)), "NAME": .string(name)])
    }

    @Test func addedChangedAndDeletedFeaturesShowAsSaved() {
        let area = [Self.site(1, "Dock", at: -69), Self.site(2, "Ramp", at: -68)]
        let point = GeoJSON.json(.points([GeoPoint(longitude: -67, latitude: 45)]))
        let edits = [
            FeatureEdit(sequence: 1, kind: .add, layer: Self.layer, globalID: "{A}", geometry: point, attributes: ["NAME": .string("Heron cove")]),
            FeatureEdit(sequence: 2, kind: .update, layer: Self.layer, objectID: 1, attributes: ["NAME": .string("Old dock")]),
            FeatureEdit(sequence: 3, kind: .delete, layer: Self.layer, objectID: 2),
            FeatureEdit(sequence: 4, kind: .update, layer: Self.layer, globalID: "{A}", objectID: -1, geometry: GeoJSON.json(.points([GeoPoint(longitude: -66, latitude: 45)])),
                        attributes: [:]),
            FeatureEdit(sequence: 5, kind: .delete, layer: Self.layer, objectID: 1, status: .undone),
            FeatureEdit(sequence: 6, kind: .add, layer: Self.layer, globalID: "{B}", geometry: point, attributes: ["NAME": .string("Synced already")], status: .synced),
            FeatureEdit(sequence: 7, kind: .add, layer: Self.layer, globalID: "{C}", geometry: point, attributes: ["NAME": .string("Undone")], status: .undone),
        ]
        let shown = EditOverlay.apply(edits, to: area, info: Self.info)
        #expect(shown.map { $0.attributes["NAME"]?.string } == ["Old dock", "Heron cove", "Synced already"])
        #expect(shown[1].attributes["OBJECTID"] == .number(-1) && shown[1].attributes["GlobalID"] == .string("{A}"))
        #expect(shown[1].geometry == .points([GeoPoint(longitude: -66, latitude: 45)]), "moved by the later edit, found by its GlobalID")
        #expect(shown[0].geometry == area[0].geometry)
        #expect(EditOverlay.apply([], to: area, info: Self.info) == area)
    }

    /// An area downloaded again after a sync holds the feature added here: the add changes it, not a twin.
    @Test func anAddTheDataAlreadyHoldsIsNotDrawnTwice() {
        var downloadedAgain = Self.site(3, "Heron cove", at: -67)
        downloadedAgain.attributes["GlobalID"] = .string("{a1}")
        let add = FeatureEdit(sequence: 1, kind: .add, layer: Self.layer, globalID: "{A1}", geometry: GeoJSON.json(.points([GeoPoint(longitude: -66, latitude: 45)])),
                              attributes: ["NAME": .string("Heron point")], status: .synced)
        let shown = EditOverlay.apply([add], to: [Self.site(1, "Dock", at: -69), downloadedAgain], info: Self.info)
        #expect(shown.map { $0.attributes["NAME"]?.string } == ["Dock", "Heron point"])
        #expect(shown[1].attributes["OBJECTID"] == .number(3), "the server's number stays")
        #expect(shown[1].geometry == .points([GeoPoint(longitude: -66, latitude: 45)]))
    }
}
