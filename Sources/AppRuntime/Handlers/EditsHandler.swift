import AppModel
import ArcGISModel
import ArcGISPortal
import Editing
import EventLoop
import Foundation
import MapbookCore
import MapbookServices
import OfflineLibrary

/// Opens an area's layers for the editor's form and keeps its edits (`AreaEditor`, the one rule
/// `mapbook feature` keeps too); sends an area's edits back (`EditSyncer`, the one sync `mapbook
/// edits sync` runs too) with the portal's client, and says what became of them.
@UIActor
final class EditsHandler {
    private let library: OfflineLibrary
    private let connection: PortalConnection
    private let send: EventSink
    private let tasks: TaskTracker

    init(library: OfflineLibrary, connection: PortalConnection, send: EventSink, tasks: TaskTracker) {
        self.library = library; self.connection = connection; self.send = send; self.tasks = tasks
    }

    func perform(_ effect: EditsFeature.Effect) {
        switch effect {
        case .sync(let area): sync(area, conflicts: .ask)
        case .settle(let area, let keepMine): sync(area, conflicts: keepMine ? .mine : .theirs)
        case .openEditor(let area, let layers, let request): openEditor(area, layers, request)
        case .save(let draft): save(draft)
        case .step(let area, let undo): step(area, undo: undo)
        }
    }

    /// The web map's own layers are edited online (their edits kept under its id): they need the
    /// portal's client; an area's are read from its files.
    private func onlineClient(for area: ItemID) async throws -> PortalClient? {
        guard area == library.webMapID else { return nil }
        guard let client = connection.client else { throw EditRefused("Not connected to the portal yet: the web map's layers are edited online.") }
        return client
    }

    private func openEditor(_ area: ItemID, _ layers: [WebMapLayer], _ request: EditsFeature.EditorRequest) {
        let library = library
        tasks.track { [send] in
            let client: PortalClient?
            do { client = try await self.onlineClient(for: area) } catch { send(.edits(.editorRefused(error.userSentence))); return }
            let result: Result<FeatureEditor, EditRefused> = await onWorkPool {
                do {
                    var editor = try await AreaEditor.open(area: area, title: "This area", library: library, webMapLayers: layers, online: client)
                    func editable(_ layer: AreaEditor.Layer) -> EditableLayer {
                        EditableLayer(title: layer.title, form: layer.form, takesFiles: layer.info.hasAttachments == true)
                    }
                    switch request {
                    case .add(let point, let named):
                        return .success(FeatureEditor(area: area, webMapLayers: layers, layers: try editor.layersTakingPoints(named: named).map(editable),
                                                      target: .add(point)))
                    case .addShape(let points):
                        return .success(FeatureEditor(area: area, webMapLayers: layers, layers: try editor.layersTakingShape(of: points.count).map(editable),
                                                      target: .addShape(points)))
                    case .update(let title, let objectID):
                        if let client { editor = try await editor.fetching(objectID, of: title, client: client) }
                        let feature = try editor.formValues(of: objectID, in: title)
                        return .success(FeatureEditor(area: area, webMapLayers: layers, layers: [editable(feature.layer)],
                                                      target: .update(layer: feature.layer.title, objectID: objectID, values: feature.values),
                                                      attached: feature.attached))
                    }
                } catch {
                    return .failure(EditRefused(error.userSentence))
                }
            }
            switch result {
            case .success(let editor): send(.edits(.editorOpened(editor)))
            case .failure(let refusal): send(.edits(.editorRefused(refusal.userMessage)))
            }
        }
    }

    private func step(_ area: ItemID, undo: Bool) {
        let folder = library.areaDirectory(area)
        tasks.track { [send] in
            let result: Result<(String, Int), EditRefused> = await onWorkPool {
                do {
                    guard FileManager.default.fileExists(atPath: folder + "/" + EditJournal.fileName) else {
                        return .failure(EditRefused(undo ? "No edit to undo." : "No edit to redo."))
                    }
                    let journal = try EditJournal(areaFolder: folder)
                    guard let edit = try undo ? journal.undo() : journal.redo() else {
                        return .failure(EditRefused(undo ? "No edit to undo." : "No edit to redo."))
                    }
                    let said = undo ? "Undid edit \(edit.sequence): \(edit.summary); Z (or redo) brings it back." : "Redid edit \(edit.sequence): \(edit.summary)."
                    return .success((said, try journal.unsynced().count))
                } catch {
                    return .failure(EditRefused(error.userSentence))
                }
            }
            switch result {
            case .success(let (sentence, unsynced)): send(.edits(.saved(area: area, sentence: sentence, unsynced: unsynced)))
            case .failure(let refusal): send(.edits(.notSaved(refusal.userMessage)))
            }
        }
    }

    private func save(_ draft: EditDraft) {
        let library = library
        tasks.track { [send] in
            let client: PortalClient?
            do { client = try await self.onlineClient(for: draft.area) } catch { send(.edits(.notSaved(error.userSentence))); return }
            let result: Result<(String, Int), EditRefused> = await onWorkPool {
                do {
                    var editor = try await AreaEditor.open(area: draft.area, title: "This area", library: library, webMapLayers: draft.layers, online: client)
                    // Online, the feature it changes is read from its service first.
                    if let client, let objectID = draft.kind.objectID { editor = try await editor.fetching(objectID, of: draft.layer, client: client) }
                    let values = draft.values.sorted { $0.key < $1.key }.map { (field: $0.key, typed: $0.value) }
                    let sentence = try editor.save(draft.kind, layer: draft.layer, values: values, attaching: draft.attaching)
                    return .success((sentence, try editor.journal.unsynced().count))
                } catch {
                    return .failure(EditRefused(error.userSentence))
                }
            }
            switch result {
            case .success(let (sentence, unsynced)): send(.edits(.saved(area: draft.area, sentence: sentence, unsynced: unsynced)))
            case .failure(let refusal): send(.edits(.notSaved(refusal.userMessage)))
            }
        }
    }

    private func sync(_ area: ItemID, conflicts: EditSync.ConflictPolicy) {
        let library = library
        tasks.track { [send, connection] in
            guard let client = connection.client else {
                send(.edits(.syncFailed(area: area, sentence: "Not connected to the portal yet.")))
                return
            }
            do {
                let report = try await EditSyncer(client: client, conflicts: conflicts).sync(area: area, title: area.rawValue, library: library)
                let unsynced = try EditJournal(areaFolder: library.areaDirectory(area)).unsynced().count
                func first(_ pick: (EditSync.Outcome) -> String?) -> String? { report.entries.compactMap { pick($0.outcome) }.first }
                let held = report.entries.filter { if case .conflict = $0.outcome { true } else { false } }.count
                let summary = SyncSummary(synced: report.done, refused: report.refused, waiting: report.waiting, conflicts: held,
                                          firstRefusal: report.entries.lazy.compactMap(\.refusal).first,
                                          firstWait: first { if case .waiting(let why) = $0 { why } else { nil } },
                                          serverChanges: report.serverChanges,
                                          lines: report.entries.map(\.line) + report.attachments.map(\.line), at: Date())
                send(.edits(.synced(area: area, summary, unsynced: unsynced)))
            } catch {
                send(.edits(.syncFailed(area: area, sentence: error.userSentence)))
            }
        }
    }
}
