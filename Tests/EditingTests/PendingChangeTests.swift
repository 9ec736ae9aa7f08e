import Editing
import MapbookCore
import Testing

/// A feature's edits fold into the one change a sync sends.
struct PendingChangeTests {
    static let sites = EditLayer(title: "Sites", serviceLayerURL: "https://example.com/FeatureServer/0")
    static let roads = EditLayer(title: "Roads")

    @Test func eachFeaturesEditsFoldIntoOneChange() {
        let point = JSONValue.object(["type": .string("Point"), "coordinates": .array([.number(-69), .number(44)])])
        let moved = JSONValue.object(["type": .string("Point"), "coordinates": .array([.number(-68), .number(45)])])
        let edits = [
            FeatureEdit(sequence: 1, kind: .add, layer: Self.sites, globalID: "{A}", geometry: point, attributes: ["N": .string("a"), "K": .number(1)]),
            FeatureEdit(sequence: 2, kind: .update, layer: Self.sites, globalID: "{OLD}", objectID: 7, attributes: ["N": .string("x")]),
            FeatureEdit(sequence: 3, kind: .update, layer: Self.sites, globalID: "{A}", objectID: -1, geometry: moved, attributes: ["N": .string("b")]),
            FeatureEdit(sequence: 4, kind: .add, layer: Self.sites, globalID: "{GONE}"),
            FeatureEdit(sequence: 5, kind: .delete, layer: Self.sites, globalID: "{GONE}", objectID: -4),
            FeatureEdit(sequence: 6, kind: .update, layer: Self.sites, globalID: "{OLD}", objectID: 7, attributes: ["K": .number(2)],
                        status: .refused("Unable to find feature")),
            FeatureEdit(sequence: 7, kind: .update, layer: Self.roads, objectID: 3, attributes: ["W": .number(4)]),
            FeatureEdit(sequence: 8, kind: .delete, layer: Self.roads, objectID: 3),
            FeatureEdit(sequence: 9, kind: .add, layer: Self.sites, globalID: "{SYNCED}", status: .synced),
            FeatureEdit(sequence: 10, kind: .add, layer: Self.sites, globalID: "{UNDONE}", status: .undone),
        ]
        let changes = PendingChange.of(edits)
        #expect(changes.map(\.kind) == [.add, .update, .delete])
        #expect(changes[0].globalID == "{A}" && changes[0].geometry == moved && changes[0].attributes == ["N": .string("b"), "K": .number(1)])
        #expect(changes[0].sequences == [1, 3] && changes[0].objectID == nil && changes[0].refused == nil)
        #expect(changes[1].objectID == 7 && changes[1].attributes == ["N": .string("x"), "K": .number(2)] && changes[1].refused == "Unable to find feature")
        #expect(changes[2].layer == Self.roads && changes[2].objectID == 3 && changes[2].attributes.isEmpty && changes[2].sequences == [7, 8])
        #expect(PendingChange.of([]).isEmpty)
    }
}
