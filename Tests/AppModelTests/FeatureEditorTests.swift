import ArcGISModel
import Foundation
import Geometry
import MapRender
import MapbookCore
import Testing
@testable import AppModel

/// Editing a downloaded area's map: `a` opens a new point's form, values are checked on their
/// fields before anything is saved, a save closes the form and opens the layers again; `e`, `v`
/// and `X` change, move and delete the feature identified.
@Suite("update: the feature editor")
struct FeatureEditorTests {
    static let sites: FeatureLayerInfo = FeatureLayerInfo(json: try! JSONValue(parsing: Data(#"""
    {"geometryType": "esriGeometryPoint", "objectIdField": "OBJECTID", "fields": [
      {"name": "OBJECTID", "type": "esriFieldTypeOID"},
      {"name": "SITE_NAME", "alias": "Site name", "type": "esriFieldTypeString", "length": 20, "nullable": false},
      {"name": "KIND", "alias": "Kind", "type": "esriFieldTypeString",
       "domain": {"type": "codedValue", "codedValues": [{"code": "W", "name": "Well"}, {"code": "S", "name": "Spring"}]}},
      {"name": "DEPTH", "alias": "Depth", "type": "esriFieldTypeInteger", "domain": {"type": "range", "range": [0, 500]}}
    ]}
    """#.utf8)))!
    static let layers = [EditableLayer(title: "Sites", form: FeatureFormDefinition(layer: sites)),
                         EditableLayer(title: "Wells", form: FeatureFormDefinition(layer: sites))]
    static let point = GeoPoint(longitude: -68.2, latitude: 44.3)

    static func withForm(_ target: EditTarget = .add(point), layers: [EditableLayer] = layers) -> AppState {
        var state = IdentifyTests.openMap(network: .offline)
        _ = App.update(&state, .edits(.editorOpened(FeatureEditor(area: Fixture.acadia, webMapLayers: [IdentifyTests.places], layers: layers, target: target))))
        return state
    }

    static func editor(_ state: AppState) -> FeatureEditor? { if case .featureForm(let editor)? = state.overlay { editor } else { nil } }

    static func type(_ state: inout AppState, _ text: String) { for character in text { _ = App.update(&state, .intent(.form(.type(character)))) } }

    @Test func aOpensTheAreasLayersAtTheCentreAndOnlyInADownloadedAreasMap() {
        var state = IdentifyTests.openMap(network: .offline)
        let centre = state.map!.viewport.center.geographic
        #expect(Fixture.keys(&state, .character("a")) == [.edits(.openEditor(area: Fixture.acadia, layers: [IdentifyTests.places], .add(centre, layer: nil)))])
        #expect(state.notice == .edits(.opening) && !state.isSettled, "a script's next command waits for the form")
        _ = App.update(&state, .edits(.editorRefused("Acadia's layers hold polygons, no points.\u{1B}[2J")))
        // Where the pointer clicked, the point goes there.
        _ = App.update(&state, .intent(.map(.identifyAt(column: 3, row: 2))))
        let clicked = try! #require(state.map?.identify?.point)
        #expect(clicked != centre)
        #expect(Fixture.keys(&state, .character("a")) == [.edits(.openEditor(area: Fixture.acadia, layers: [IdentifyTests.places], .add(clicked, layer: nil)))])
        _ = App.update(&state, .edits(.editorRefused("Acadia's layers hold polygons, no points.\u{1B}[2J")))
        #expect(state.notice?.sentence == "Acadia's layers hold polygons, no points." && state.overlay == nil)
        // The web map's own map is edited online, under the web map's id; offline, only an area's.
        var webMap = Fixture.loaded(downloaded: [])
        webMap.catalog.webMap?.operationalLayers = [IdentifyTests.places]
        _ = App.update(&webMap, .intent(.list(.selectRow(0))))
        _ = Fixture.keys(&webMap, .character("m"))
        let id = try! #require(webMap.catalog.webMapItem?.id)
        #expect(Fixture.keys(&webMap, .character("a")) == [.edits(.openEditor(area: id, layers: [IdentifyTests.places],
                                                                               .add(webMap.map!.viewport.center.geographic, layer: nil)))])
        _ = App.update(&webMap, .edits(.editorRefused("x")))
        _ = App.update(&webMap, .catalog(.network(.offline)))
        #expect(Fixture.keys(&webMap, .character("a")).isEmpty)
        #expect(webMap.notice?.sentence.hasPrefix("Offline, edits are made in a downloaded area's map") == true)
    }

    @Test func valuesAreRefusedOnTheirFieldBeforeAnythingIsSaved() throws {
        var state = Self.withForm()
        var editor = try #require(Self.editor(state))
        #expect(editor.fields.fields.map(\.label) == ["Layer", "Site name *", "Kind", "Depth"])
        // Enter with the required field empty: refused there, nothing asked of the runtime.
        #expect(Fixture.keys(&state, .enter).isEmpty)
        editor = try #require(Self.editor(state))
        #expect(editor.fields.problem == "Site name is required." && editor.fields.focus == 1)
        Self.type(&state, "Heron cove")
        _ = App.update(&state, .intent(.form(.nextField)))
        _ = App.update(&state, .intent(.form(.adjust(2))))
        _ = App.update(&state, .intent(.form(.nextField)))
        Self.type(&state, "900")
        #expect(Fixture.keys(&state, .enter).isEmpty)
        #expect(Self.editor(state)?.fields.problem == "Depth: a whole number from 0 to 500.")
        _ = App.update(&state, .intent(.form(.deleteBackward)))
        _ = App.update(&state, .intent(.form(.deleteBackward)))
        let effects = Fixture.keys(&state, .enter)
        #expect(effects == [.edits(.save(EditDraft(area: Fixture.acadia, layers: [IdentifyTests.places], layer: "Sites", kind: .add(Self.point),
                                                   values: ["SITE_NAME": "Heron cove", "KIND": "W", "DEPTH": "9"])))])
        #expect(Self.editor(state)?.isSaving == true && !state.isSettled)
        // Keys wait while it is saved; the answer closes the form and opens the layers again.
        #expect(Fixture.keys(&state, .escape).isEmpty && Self.editor(state) != nil)
        let saved = App.update(&state, .edits(.saved(area: Fixture.acadia, sentence: "Saved a new feature in Sites.", unsynced: 3)))
        #expect(state.overlay == nil && state.library.unsyncedEdits[Fixture.acadia] == 3)
        #expect(state.notice?.sentence == "Saved a new feature in Sites. 3 edits not synced.")
        #expect(saved.contains(.map(.openFeatureLayers(session: 1, OperationalLayers(area: Fixture.acadia, layers: [IdentifyTests.places], online: false)))))
        #expect(!saved.contains { if case .edits(.sync) = $0 { true } else { false } }, "offline, nothing is synced")
    }

    @Test func theLayerChoiceKeepsWhatIsTypedAndARefusalFromTheJournalStaysOnTheForm() throws {
        var state = Self.withForm()
        _ = App.update(&state, .intent(.form(.nextField)))
        Self.type(&state, "Heron")
        _ = App.update(&state, .intent(.form(.previousField)))
        _ = App.update(&state, .intent(.form(.adjust(1))))
        let editor = try #require(Self.editor(state))
        #expect(editor.chosenLayer.title == "Wells" && editor.typed["SITE_NAME"] == "Heron")
        _ = Fixture.keys(&state, .enter)
        _ = App.update(&state, .edits(.notSaved("The disk is full: the edit was not saved.")))
        #expect(Self.editor(state)?.fields.problem == "The disk is full: the edit was not saved." && Self.editor(state)?.isSaving == false)
    }

    @Test func thePlainModesSetNamesAFieldAndAChoiceByName() throws {
        var state = Self.withForm(layers: [Self.layers[0]])
        _ = App.update(&state, .intent(.form(.set(field: "kind", value: "well"))))
        _ = App.update(&state, .intent(.form(.set(field: "Site name", value: "Heron cove"))))
        #expect(Self.editor(state)?.typed == ["SITE_NAME": "Heron cove", "KIND": "W", "DEPTH": ""])
        _ = App.update(&state, .intent(.form(.set(field: "kind", value: "Pond"))))
        #expect(Self.editor(state)?.fields.problem == "Kind must be one of Spring, Well.")
        _ = App.update(&state, .intent(.form(.set(field: "colour", value: "red"))))
        #expect(Self.editor(state)?.fields.problem == "The form has no field “colour”; it has SITE_NAME, KIND, DEPTH.")
        _ = App.update(&state, .intent(.form(.set(field: "depth", value: "deep"))))
        #expect(Self.editor(state)?.fields.problem == "Depth: a whole number from 0 to 500.")
    }

    @Test func aFileToAttachIsTheFormsLastFieldWhereTheLayerKeepsFiles() throws {
        let withFiles = [EditableLayer(title: "Sites", form: FeatureFormDefinition(layer: Self.sites), takesFiles: true)]
        var state = Self.withForm(.update(layer: "Sites", objectID: 7, values: ["SITE_NAME": "Old mill"]), layers: withFiles)
        _ = App.update(&state, .intent(.form(.previousField)))
        #expect(Self.editor(state)?.fields[3].label == "Attach file" && Self.editor(state)?.fields.focus == 3)
        Self.type(&state, "~/photo.jpg")
        // A file alone is a change worth saving.
        #expect(Fixture.keys(&state, .enter) == [.edits(.save(EditDraft(area: Fixture.acadia, layers: [IdentifyTests.places], layer: "Sites",
                                                                      kind: .update(objectID: 7), attaching: ["~/photo.jpg"])))])
        var plain = Self.withForm(layers: withFiles)
        _ = App.update(&plain, .intent(.form(.set(field: "attach", value: "/tmp/a b.jpg"))))
        #expect(Self.editor(plain)?.attaching == "/tmp/a b.jpg" && Self.editor(plain)?.typed["SITE_NAME"] == "")
    }

    @Test func anUpdateSendsOnlyWhatChanged() throws {
        var state = Self.withForm(.update(layer: "Sites", objectID: 7, values: ["SITE_NAME": "Old mill", "KIND": "W"]), layers: [Self.layers[0]])
        #expect(Self.editor(state)?.fields.fields.map(\.shown) == ["Old mill", "Well", ""])
        _ = Fixture.keys(&state, .enter)
        #expect(Self.editor(state)?.fields.problem == "Nothing changed: type a new value, or Esc.")
        _ = App.update(&state, .intent(.form(.nextField)))
        _ = App.update(&state, .intent(.form(.nextField)))
        Self.type(&state, "12")
        #expect(Fixture.keys(&state, .enter) == [.edits(.save(EditDraft(area: Fixture.acadia, layers: [IdentifyTests.places], layer: "Sites",
                                                                      kind: .update(objectID: 7), values: ["DEPTH": "12"])))])
    }

    @Test func theFeatureIdentifiedIsChangedMovedOrDeletedAfterAsking() throws {
        var state = IdentifyTests.openMap(network: .offline)
        _ = Fixture.keys(&state, .character("i"))
        let id = try #require(state.map?.identify?.id)
        let here = GeoPoint(longitude: -68.21, latitude: 44.31)
        let hit = IdentifyHit(card: PopupCard(layer: "Places", title: "Bar Harbor", rows: []), geometry: .points([here]),
                              feature: .init(layer: "Places", objectID: 4))
        _ = App.update(&state, .map(.identified(session: 1, id: id, [hit, IdentifyHit(card: PopupCard(layer: "land · basemap", title: "Land", rows: []), geometry: nil)])))
        #expect(Fixture.keys(&state, .character("e")) == [.edits(.openEditor(area: Fixture.acadia, layers: [IdentifyTests.places], .update(layer: "Places", objectID: 4)))])
        _ = App.update(&state, .edits(.editorRefused("x")))
        let centre = state.map!.viewport.center.geographic
        #expect(Fixture.keys(&state, .character("v")) == [.edits(.save(EditDraft(area: Fixture.acadia, layers: [IdentifyTests.places], layer: "Places",
                                                                                kind: .move(objectID: 4, to: centre))))])
        _ = App.update(&state, .edits(.saved(area: Fixture.acadia, sentence: "Moved Places 4.", unsynced: 1)))
        #expect(state.map?.identify == nil, "the card of a feature moved is gone with the layers opened again")
        // Identified again: X asks first, and only yes deletes.
        _ = Fixture.keys(&state, .character("i"))
        _ = App.update(&state, .map(.identified(session: 1, id: state.map!.identify!.id, [hit])))
        #expect(Fixture.keys(&state, .character("X")).isEmpty)
        guard case .confirm(let question)? = state.overlay else { Issue.record("not asked"); return }
        #expect(question.question == "Delete Bar Harbor from Places?")
        #expect(App.update(&state, .intent(.confirm(true))) == [.edits(.save(EditDraft(area: Fixture.acadia, layers: [IdentifyTests.places],
                                                                                     layer: "Places", kind: .delete(objectID: 4))))])
        // The basemap's features are not the area's to edit.
        _ = App.update(&state, .edits(.saved(area: Fixture.acadia, sentence: "Deleted Places 4.", unsynced: 2)))
        _ = Fixture.keys(&state, .character("i"))
        _ = App.update(&state, .map(.identified(session: 1, id: state.map!.identify!.id, [IdentifyHit(card: PopupCard(layer: "land · basemap", title: "Land", rows: []), geometry: nil)])))
        #expect(Fixture.keys(&state, .character("e")).isEmpty)
        #expect(state.notice?.sentence == "Land is not a feature of the area's layers; it cannot be edited.")
    }

    @Test func uUndoesTheLastEditAndZBringsItBack() {
        var state = IdentifyTests.openMap(network: .offline)
        #expect(Fixture.keys(&state, .character("U")) == [.edits(.step(area: Fixture.acadia, undo: true))])
        #expect(!state.isSettled, "a script's next command waits for the answer")
        let effects = App.update(&state, .edits(.saved(area: Fixture.acadia, sentence: "Undid edit 3: add to Places; Z (or redo) brings it back.", unsynced: 2)))
        #expect(state.notice?.sentence == "Undid edit 3: add to Places; Z (or redo) brings it back. 2 edits not synced." && state.isSettled == false)
        #expect(effects.contains { if case .map(.openFeatureLayers) = $0 { true } else { false } }, "the map shows it gone")
        #expect(Fixture.keys(&state, .character("Z")) == [.edits(.step(area: Fixture.acadia, undo: false))])
        _ = App.update(&state, .edits(.notSaved("No edit to redo.")))
        #expect(state.notice?.sentence == "No edit to redo.")
    }

    @Test func aSyncOfTheAreaShownOpensItsLayersAgain() {
        var state = IdentifyTests.openMap(network: .online)
        let summary = SyncSummary(synced: 1, refused: 0, waiting: 0, serverChanges: "2 came down.", at: Date(timeIntervalSince1970: 1_800_000_000))
        let effects = App.update(&state, .edits(.synced(area: Fixture.acadia, summary, unsynced: 0)))
        #expect(effects.contains { if case .map(.openFeatureLayers) = $0 { true } else { false } })
        #expect(App.update(&state, .edits(.synced(area: Fixture.bangor, summary, unsynced: 0))).isEmpty, "another area's map is not open")
    }
}
