import ArcGISModel
import Foundation
import Geometry
import MapRender
import MapbookCore

/// Editing a downloaded area's map (or online, the web map's own): `a` adds a point at the centre
/// (or where the pointer clicked; with the ruler out, a line or an area through its points)
/// through its layer's form; with a feature identified, `e` changes its values, `v` moves it (a
/// point) to the centre and `X` deletes it (asked first); `U` and `Z` undo and redo. Each edit is
/// kept in the journal at once, drawn over the area's data, and synced as the others are.
extension App {
    static func addFeature(_ state: inout AppState, at point: GeoPoint?, layer: String?) -> [Effect] {
        guard let (area, layers) = editableArea(&state), let map = state.map else { return [] }
        state.notice = .edits(.opening)
        // With the ruler out, its points (the centre the last) are the vertices of a line or an area.
        if point == nil, let ruler = map.ruler {
            var vertices: [GeoPoint] = []
            for vertex in ruler.path(to: map.viewport.center.geographic) where vertex != vertices.last { vertices.append(vertex) }
            if vertices.count >= 2 { return openEditor(&state, area, layers, .addShape(vertices)) }
        }
        // Where the pointer clicked (the identify card's place), else the centre.
        return openEditor(&state, area, layers, .add(point ?? map.identify?.point ?? state.mapFocus ?? map.viewport.center.geographic, layer: layer))
    }

    static func editFeature(_ state: inout AppState) -> [Effect] {
        guard let feature = identifiedFeature(&state), let (area, layers) = editableArea(&state) else { return [] }
        state.notice = .edits(.opening)
        return openEditor(&state, area, layers, .update(layer: feature.layer, objectID: feature.objectID))
    }

    static func moveFeature(_ state: inout AppState) -> [Effect] {
        guard let feature = identifiedFeature(&state), let (area, layers) = editableArea(&state), let map = state.map else { return [] }
        guard case .points(let points)? = map.identify?.shown?.geometry, points.count == 1 else {
            state.notice = .problem("Only a point can be moved here; a line's or an area's shape is changed with mapbook feature update --geometry.")
            return []
        }
        let centre = map.viewport.center.geographic
        return saveEdit(&state, EditDraft(area: area, layers: layers, layer: feature.layer, kind: .move(objectID: feature.objectID, to: centre)))
    }

    static func deleteFeature(_ state: inout AppState) -> [Effect] {
        guard let feature = identifiedFeature(&state), let (area, layers) = editableArea(&state), let hit = state.map?.identify?.shown else { return [] }
        let draft = EditDraft(area: area, layers: layers, layer: feature.layer, kind: .delete(objectID: feature.objectID))
        state.overlay = .confirm(Confirmation(question: "Delete \(hit.card.title) from \(TerminalText.sanitizedLine(feature.layer, maxLength: 60))?",
                                              detail: "The deletion waits in the area's edits until it is synced; U takes it back before then.",
                                              action: .deleteFeature(draft)))
        return []
    }

    private static func openEditor(_ state: inout AppState, _ area: ItemID, _ layers: [WebMapLayer], _ request: EditsFeature.EditorRequest) -> [Effect] {
        state.library.editsUnderWay += 1
        return [.edits(.openEditor(area: area, layers: layers, request))]
    }

    /// `U` and `Z`: the map's area's last edit undone, or brought back (its answer as a save's).
    static func stepEdits(_ state: inout AppState, undo: Bool) -> [Effect] {
        guard let (area, _) = editableArea(&state) else { return [] }
        state.library.editsUnderWay += 1
        return [.edits(.step(area: area, undo: undo))]
    }

    /// Asks for `draft` to be kept; the answer is awaited (`AppState.isSettled`).
    static func saveEdit(_ state: inout AppState, _ draft: EditDraft) -> [Effect] {
        state.library.editsUnderWay += 1
        return [.edits(.save(draft))]
    }

    /// Whose edits the open map takes — a downloaded area's, or online the web map's own (kept
    /// under its id, synced at once) — and its web map layers; else why not.
    private static func editableArea(_ state: inout AppState) -> (ItemID, [WebMapLayer])? {
        guard let operational = state.map?.operational, !operational.layers.isEmpty, let key = state.editsOfOpenMap else {
            state.notice = .problem("This map has no feature layers to edit: open a downloaded area's map, or the web map's online.")
            return nil
        }
        if operational.area == nil, state.portal.network.isCutOff {
            state.notice = .problem("Offline, edits are made in a downloaded area's map: open it with m on its row.")
            return nil
        }
        return (key, operational.layers)
    }

    /// The feature the identify card shows, when it is one of the area's own.
    private static func identifiedFeature(_ state: inout AppState) -> IdentifyHit.Feature? {
        guard let hit = state.map?.identify?.shown else {
            state.notice = .problem("Identify a feature first: i at the centre, or a click.")
            return nil
        }
        guard let feature = hit.feature else {
            state.notice = .problem("\(hit.card.title) is not a feature of the area's layers; it cannot be edited.")
            return nil
        }
        return feature
    }

    static func editorOpened(_ state: inout AppState, _ editor: FeatureEditor) -> [Effect] {
        guard state.editsOfOpenMap == editor.area else { return [] }
        state.notice = nil
        state.overlay = .featureForm(editor)
        return []
    }

    static func editFeatureForm(_ state: inout AppState, _ edit: FormEdit) -> [Effect] {
        guard case .featureForm(var editor)? = state.overlay else { return [] }
        if case .set(let name, let value) = edit {
            switch editor.set(name, to: value) {
            case .success(let index): editor.changed(index)
            case .failure(let refusal): editor.fields.refuse(refusal.sentence, at: refusal.field)
            }
            state.overlay = .featureForm(editor)
            return []
        }
        switch editor.fields.apply(edit) {
        case .changed(let index):
            editor.changed(index)
        case .unchanged:
            break
        case .cancel:
            state.overlay = nil
            return []
        case .save:
            if editor.fields.refuseInvalid() { break }
            switch editor.draft() {
            case .failure(let refusal):
                editor.fields.refuse(refusal.sentence, at: refusal.field)
            case .success(let draft):
                editor.fields.isBusy = true
                editor.fields.problem = nil
                state.overlay = .featureForm(editor)
                return saveEdit(&state, draft)
            }
        }
        state.overlay = .featureForm(editor)
        return []
    }

    static func saved(_ state: inout AppState, area: ItemID, sentence: String, unsynced: Int) -> [Effect] {
        if case .featureForm(let editor)? = state.overlay {
            state.overlay = nil
            // The ruler whose points became the shape is put away with it.
            if case .addShape = editor.target { state.withMap { $0.ruler = nil } }
        }
        state.library.unsyncedEdits[area] = unsynced > 0 ? unsynced : nil
        let waiting = unsynced == 1 ? "1 edit not synced." : "\(Format.grouped(unsynced)) edits not synced."
        let effects = syncEditsByItself(&state)
        state.notice = .edits(.saved(TerminalText.sanitizedLine(sentence, maxLength: 300) + " " + waiting))
        return effects + reopenLayers(&state, of: area)
    }

    /// The open map of `area` opens its layers again from the area's files, the edits laid over
    /// them: after an edit is saved, and after a sync (the server's changes in, synced edits folded).
    static func reopenLayers(_ state: inout AppState, of area: ItemID) -> [Effect] {
        guard let map = state.map, let operational = map.operational, state.editsOfOpenMap == area else { return [] }
        state.withMap { $0.identify = nil; $0.isOpeningLayers = true }
        return [.map(.openFeatureLayers(session: map.session, operational))]
    }

    static func notSaved(_ state: inout AppState, _ sentence: String) -> [Effect] {
        let clean = TerminalText.sanitizedLine(sentence, maxLength: 400)
        guard case .featureForm(var editor)? = state.overlay else {
            state.notice = .problem(clean)
            return []
        }
        editor.fields.isBusy = false
        editor.fields.refuse(clean, at: editor.fields.focus)
        state.overlay = .featureForm(editor)
        return []
    }
}
