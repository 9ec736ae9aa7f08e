import Editing
import Foundation
import Geometry
import MapbookCore
import Testing

/// The rules of a sync apart from the network: where a change goes, the `edits` parameter, and
/// what an answer — however odd — says of each change sent.
struct EditSyncRulesTests {
    static let service = "https://services.example.com/arcgis/rest/services/Sites/FeatureServer"

    static func change(_ kind: PendingChange.Kind, _ globalID: String, geometry: JSONValue? = nil, attributes: [String: JSONValue] = [:]) -> PendingChange {
        PendingChange(kind: kind, layer: EditLayer(title: "Sites", serviceLayerURL: service + "/2"), globalID: globalID,
                      objectID: kind == .add ? nil : 7, geometry: geometry, attributes: attributes, sequences: [1], refused: nil)
    }

    @Test func aChangeGoesToTheFeatureServiceLayerItsLayerNames() {
        #expect(EditSync.target(of: EditLayer(title: "Sites", serviceLayerURL: Self.service + "/2")) == EditSync.Target(serviceURL: Self.service, layerID: 2))
        #expect(EditSync.target(of: EditLayer(title: "Sites", serviceLayerURL: Self.service + "/2/")) == EditSync.Target(serviceURL: Self.service, layerID: 2))
        for unusable in [nil, "", "file:///tmp/x/FeatureServer/2", Self.service, Self.service + "/x", "https://h/MapServer/2",
                         Self.service + "/2?token=abc", "https://h/FeatureServer/-1"] {
            #expect(EditSync.target(of: EditLayer(title: "Sites", serviceLayerURL: unusable)) == nil, "\(unusable ?? "nil")")
        }
    }

    @Test func theEditsParameterCarriesGlobalIDsAndWoundRings() throws {
        let square = GeoJSON.json(.polygons([[[GeoPoint(longitude: 0, latitude: 0), GeoPoint(longitude: 1, latitude: 0), GeoPoint(longitude: 1, latitude: 1),
                                               GeoPoint(longitude: 0, latitude: 1), GeoPoint(longitude: 0, latitude: 0)]]]))
        let edits = EditSync.editsParameter([
            (2, Self.change(.add, "{A}", geometry: square, attributes: ["NAME": .string("Pond")])),
            (2, Self.change(.update, "{B}", attributes: ["NAME": .string("Dock")])),
            (3, Self.change(.delete, "{C}")),
        ], globalIDFields: [2: "GLOBALID"])
        let layers = edits.array
        #expect(layers.count == 2)
        #expect(layers[0]["id"] == .number(2) && layers[1]["id"] == .number(3))
        let add = try #require(layers[0]["adds"]?.array.first)
        #expect(add["attributes"]?["GLOBALID"] == .string("{A}") && add["attributes"]?["NAME"] == .string("Pond"))
        #expect(add["geometry"]?["spatialReference"]?["wkid"] == .number(4326))
        // GeoJSON's outer ring is counter-clockwise; ArcGIS's is clockwise: (0,0) (0,1) (1,1) …
        let ring = add["geometry"]?["rings"]?.array.first?.array.map { $0.array.compactMap(\.double) }
        #expect(ring?[1] == [0, 1])
        #expect(layers[0]["updates"]?.array.first?["attributes"]?["GLOBALID"] == .string("{B}"))
        #expect(layers[0]["updates"]?.array.first?["geometry"] == nil, "a shape left as it was is not sent")
        #expect(layers[1]["deletes"] == .array([.string("{C}")]))
        #expect(layers[1]["adds"] == .array([]))
    }

    @Test func theAnswerIsReadPerChangeByGlobalID() throws {
        let sent: [(layerID: Int, change: PendingChange)] = [(2, Self.change(.add, "{A}")), (2, Self.change(.update, "{B}")),
                                                             (2, Self.change(.delete, "{C}")), (2, Self.change(.add, "{D}"))]
        let answer = try JSONValue(parsing: Data("""
            [{"id": 2,
              "addResults": [{"objectId": 41, "globalId": "{a}", "success": true}, {"objectId": 99, "globalId": "{NOT-SENT}", "success": true}],
              "updateResults": [{"objectId": 7, "globalId": "{B}", "success": false, "error": {"code": 1019, "description": "Unable to find feature.\\u001b[2J"}}],
              "deleteResults": [{"objectId": 7, "globalId": "{C}", "success": true}]},
             {"id": 5, "addResults": [{"objectId": 1, "globalId": "{D}", "success": true}]}]
            """.utf8))
        let outcomes = EditSync.outcomes(of: answer, for: sent)
        #expect(outcomes[0] == .added(objectID: 41), "GlobalIDs compare ignoring case")
        #expect(outcomes[1] == .refused("Unable to find feature."), "the escape sequence is stripped")
        #expect(outcomes[2] == .deleted)
        #expect(outcomes[3] == .waiting("The server's answer did not mention it."), "a success for another layer is not this change's")
    }

    @Test func anAnswerThatIsNotResultsLeavesEveryChangeWaiting() throws {
        let sent: [(layerID: Int, change: PendingChange)] = [(0, Self.change(.add, "{A}"))]
        for odd in ["{}", "[]", "\"<html>\"", "[1, 2, 3]", "[{\"id\": 0, \"addResults\": {\"globalId\": \"{A}\"}}]"] {
            let answer = try JSONValue(parsing: Data(odd.utf8))
            #expect(EditSync.outcomes(of: answer, for: sent) == [.waiting("The server's answer did not mention it.")], "\(odd)")
        }
        // Ten thousand results for one change sent: read within bounds, the one that matters found.
        let many = (0..<10_000).map { JSONValue.object(["globalId": .string("{X\($0)}"), "success": .bool(true)]) }
            + [.object(["globalId": .string("{A}"), "objectId": .number(3), "success": .bool(true)])]
        let flood = JSONValue.array([.object(["id": .number(0), "addResults": .array(many)])])
        #expect(EditSync.outcomes(of: flood, for: sent) == [.added(objectID: 3)])
    }

    @Test func aRefusalIsReconsideredByWhatTheServerHolds() {
        let add = Self.change(.add, "{A}"), delete = Self.change(.delete, "{C}"), update = Self.change(.update, "{B}")
        #expect(EditSync.settle(.refused("exists"), of: add, heldByServer: true) == .alreadyThere)
        #expect(EditSync.settle(.refused("bad value"), of: add, heldByServer: false) == .refused("bad value"))
        #expect(EditSync.settle(.refused("Unable to find feature."), of: delete, heldByServer: false) == .alreadyThere)
        #expect(EditSync.settle(.refused("locked"), of: delete, heldByServer: true) == .refused("locked"))
        #expect(EditSync.settle(.refused("Unable to find feature."), of: update, heldByServer: false) == .refused("Unable to find feature."))
        #expect(EditSync.settle(.updated, of: update, heldByServer: true) == .updated)
    }
}

/// A conflict: a field changed here and on the server since the area was downloaded, to different values.
struct ConflictRulesTests {
    static func change(_ attributes: [String: JSONValue], original: [String: JSONValue]) -> PendingChange {
        PendingChange(kind: .update, layer: EditLayer(title: "Sites"), globalID: "{A}", objectID: 7, geometry: nil, attributes: attributes,
                      sequences: [1], refused: nil, original: original)
    }

    @Test func onlyAFieldBothSidesChangedDifferentlyIsAConflict() {
        let change = Self.change(["NAME": .string("Heron point"), "KIND": .number(2), "NOTE": .string("x")],
                                 original: ["NAME": .string("Heron cove"), "KIND": .number(1)])
        let server: [String: JSONValue] = ["NAME": .string("Heron bay"), "KIND": .string("1"), "NOTE": .string("y")]
        #expect(EditSync.conflicts(of: change, server: server) == [EditSync.FieldConflict(field: "NAME", mine: .string("Heron point"),
                                                                                            theirs: .string("Heron bay"), was: .string("Heron cove"))],
                "KIND unchanged on the server (a number written as text); NOTE's value before is not known")
        #expect(EditSync.conflicts(of: change, server: ["NAME": .string("Heron point")]).isEmpty, "the same change on both sides")
        #expect(EditSync.conflicts(of: change, server: [:]).isEmpty)
        let sentence = EditSync.sentence(EditSync.conflicts(of: change, server: server))
        #expect(sentence == "Changed on the server too: NAME is “Heron point” here, “Heron bay” on the server (it was “Heron cove”). Sync with --prefer mine or --prefer theirs.")
    }

    @Test func aFeaturesValuesBeforeAreThoseOfItsFirstChange() {
        let layer = EditLayer(title: "Sites")
        let edits = [
            FeatureEdit(sequence: 1, kind: .update, layer: layer, globalID: "{A}", objectID: 7, attributes: ["NAME": .string("B")], original: ["NAME": .string("A")]),
            FeatureEdit(sequence: 2, kind: .update, layer: layer, globalID: "{A}", objectID: 7, attributes: ["NAME": .string("C"), "KIND": .number(3)],
                        original: ["NAME": .string("B"), "KIND": .number(1)]),
        ]
        let change = try? #require(PendingChange.of(edits).first)
        #expect(change?.original == ["NAME": .string("A"), "KIND": .number(1)])
        #expect(PendingChange.of([FeatureEdit(sequence: 1, kind: .add, layer: layer, globalID: "{B}", attributes: ["NAME": .string("X")])]).first?.original == [:])
    }
}
