import ArcGISModel
import Foundation
import Geometry
import MapbookCore

/// The edits saved offline, sent back: `y` syncs the selected area's (on the web map's row, every
/// area's), and with `sync = auto` they go by themselves once the portal answers. Each sync ends
/// in a report kept on the area until the next one: never silent.
public enum EditsFeature {
    /// What comes back from this feature's work (`Event.edits`).
    public enum Action: Sendable {
        /// A sync of the area ended: what became of its changes, and how many edits still wait.
        case synced(area: ItemID, SyncSummary, unsynced: Int)
        /// It could not run at all (the journal unreadable, no client): one sentence.
        case syncFailed(area: ItemID, sentence: String)
        /// The area's layers were opened for an edit: the form to fill in.
        case editorOpened(FeatureEditor)
        /// Nothing here can take the edit asked for, or the area could not be opened: why.
        case editorRefused(String)
        /// An edit was kept in the area's journal (`sentence` says what); so many now wait.
        case saved(area: ItemID, sentence: String, unsynced: Int)
        /// It was not kept: why (a value refused names its field).
        case notSaved(String)
    }

    /// The work this feature asks for (`Effect.edits`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Send the area's unsynced edits to their services and record the outcome (→ `synced`).
        case sync(area: ItemID)
        /// Sync the area's edits, those the server changed too sent as they are (`keepMine`) or
        /// with the server's values in the fields both changed (→ `synced`).
        case settle(area: ItemID, keepMine: Bool)
        /// Open the area's layers from its files for an edit (→ `editorOpened`, or `editorRefused`).
        case openEditor(area: ItemID, layers: [WebMapLayer], EditorRequest)
        /// Check and keep an edit in the area's journal (→ `saved`, or `notSaved`).
        case save(EditDraft)
        /// Undo the area's last edit not yet synced, or redo the one undone last (→ `saved`, or
        /// `notSaved` when there is none).
        case step(area: ItemID, undo: Bool)
    }

    /// What the editor is opened for: a new point here, or a feature's values.
    public enum EditorRequest: Equatable, Sendable {
        /// `layer`: the one named (the plain mode's `add point LAYER`), else every layer taking points.
        case add(GeoPoint, layer: String?)
        /// A line or an area through these points (the ruler's).
        case addShape([GeoPoint])
        case update(layer: String, objectID: Int64)
    }

    /// What the edits say in the status bar (`Notice.edits`).
    public enum Notice: Equatable, Sendable {
        case syncing(count: Int)
        case synced(title: String, SyncSummary)
        case syncFailed(title: String, sentence: String)
        case nothingToSync
        case offline
        case opening
        case saved(String)

        var sentence: String {
            switch self {
            case .syncing(let count): "Syncing the edits of \(count) area\(count == 1 ? "" : "s")…"
            case .synced(let title, let summary): "\(title): " + summary.sentence
            case .syncFailed(let title, let sentence): "\(title): the edits were not synced: \(sentence)"
            case .nothingToSync: "No edits wait to be synced."
            case .offline: "Offline: the edits are synced when the network is back."
            case .opening: "Opening the area's layers for editing…"
            case .saved(let sentence): sentence
            }
        }

        /// A refusal or a failure stays until something replaces it; a clean sync is news.
        var fades: Bool {
            switch self {
            case .synced(_, let summary): summary.refused == 0 && summary.waiting == 0
            case .syncFailed, .offline: false
            case .syncing, .nothingToSync, .opening, .saved: true
            }
        }
    }
}

/// What one sync of an area did, as the browser shows it (the area's details keep it): counts,
/// and the first reason the server refused a change or a change still waits, sanitized.
public struct SyncSummary: Equatable, Sendable {
    public var synced: Int
    public var refused: Int
    public var waiting: Int
    /// Of those refused, the changes held because the server changed the same fields.
    public var conflicts: Int
    public var firstRefusal: String?
    public var firstWait: String?
    /// What came down from the server into the area afterwards, or why nothing did.
    public var serverChanges: String?
    /// What became of each change and file, a line each (as `mapbook edits sync` prints them).
    public var lines: [String]
    public var at: Date

    /// The most lines kept; the rest are counted.
    public static let mostLines = 200

    public init(synced: Int, refused: Int, waiting: Int, conflicts: Int = 0, firstRefusal: String? = nil, firstWait: String? = nil,
                serverChanges: String? = nil, lines: [String] = [], at: Date) {
        self.synced = synced; self.refused = refused; self.waiting = waiting; self.conflicts = min(conflicts, refused)
        self.lines = lines.prefix(Self.mostLines).map { TerminalText.sanitizedLine($0, maxLength: 400) }
            + (lines.count > Self.mostLines ? ["… and \(lines.count - Self.mostLines) more: mapbook edits list shows what still waits."] : [])
        self.firstRefusal = firstRefusal.map { TerminalText.sanitizedLine($0, maxLength: 300) }
        self.firstWait = firstWait.map { TerminalText.sanitizedLine($0, maxLength: 300) }
        self.serverChanges = serverChanges.map { TerminalText.sanitizedLine($0, maxLength: 300) }
        self.at = at
    }

    /// "3 edits synced; 1 refused: Unable to find feature."
    public var sentence: String {
        guard synced + refused + waiting > 0 else { return "no edits waited to be synced." }
        var parts = ["\(synced) change\(synced == 1 ? "" : "s") synced"]
        if refused > 0 { parts.append("\(refused) refused" + (firstRefusal.map { ": \($0)" } ?? "")) }
        if waiting > 0 { parts.append("\(waiting) still wait" + (waiting == 1 ? "s" : "") + (firstWait.map { ": \($0)" } ?? "")) }
        return parts.joined(separator: "; ") + (parts.last?.hasSuffix(".") == true ? "" : ".")
    }
}

extension App {
    /// `EditsFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: EditsFeature.Action) -> [Effect] {
        switch action {
        case .synced(let area, let summary, let unsynced):
            state.library.syncing.remove(area)
            state.library.lastSync[area] = summary
            state.library.unsyncedEdits[area] = unsynced > 0 ? unsynced : nil
            state.notice = .edits(.synced(title: state.title(of: area), summary))
            return reopenLayers(&state, of: area)
        case .syncFailed(let area, let sentence):
            state.library.syncing.remove(area)
            state.notice = .edits(.syncFailed(title: state.title(of: area), sentence: TerminalText.sanitizedLine(sentence, maxLength: 300)))
        case .editorOpened(let editor):
            state.library.editsUnderWay = max(state.library.editsUnderWay - 1, 0)
            return editorOpened(&state, editor)
        case .editorRefused(let sentence):
            state.library.editsUnderWay = max(state.library.editsUnderWay - 1, 0)
            state.notice = .problem(TerminalText.sanitizedLine(sentence, maxLength: 400))
        case .saved(let area, let sentence, let unsynced):
            state.library.editsUnderWay = max(state.library.editsUnderWay - 1, 0)
            return saved(&state, area: area, sentence: sentence, unsynced: unsynced)
        case .notSaved(let sentence):
            state.library.editsUnderWay = max(state.library.editsUnderWay - 1, 0)
            return notSaved(&state, sentence)
        }
        return []
    }

    /// `y`: the selected area's edits, or on the web map's row every area's. A downloaded area is
    /// synced even when no edit is known to wait: another mapbook may have saved some meanwhile.
    static func syncEdits(_ state: inout AppState) -> [Effect] {
        let areas = state.selectedAreaIndex.map { [state.catalog.areas[$0].item.id] }
            ?? Array(Set(state.library.unsyncedEdits.keys).union(state.library.downloads.keys))
        return startSyncing(&state, areas.filter { (state.library.unsyncedEdits[$0] ?? 0) > 0 || state.library.downloads[$0] != nil }, asked: true)
    }

    /// `K` and `T` on an area whose last sync held changes in conflict: asked first, as neither
    /// can be taken back once sent.
    static func askToSettleConflicts(_ state: inout AppState, keepMine: Bool) -> [Effect] {
        guard let index = state.selectedAreaIndex, let summary = state.library.lastSync[state.catalog.areas[index].item.id], summary.conflicts > 0 else {
            state.notice = .problem("No change of this area waits on a conflict with the server.")
            return []
        }
        let area = state.catalog.areas[index].item.id
        let changes = summary.conflicts == 1 ? "the change" : "the \(summary.conflicts) changes"
        state.overlay = .confirm(Confirmation(
            question: keepMine ? "Send \(changes) the server changed too, with your values?" : "Take the server's values in \(changes) the server changed too?",
            detail: (summary.firstRefusal.map { $0 + " " } ?? "")
                + (keepMine ? "Yours replace the server's in those fields." : "Your values in those fields are dropped; your other changes still go."),
            action: .settleConflicts(area, keepMine: keepMine)))
        return []
    }

    static func settleConflicts(_ state: inout AppState, _ area: ItemID, keepMine: Bool) -> [Effect] {
        guard !state.portal.network.isCutOff else { state.notice = .edits(.offline); return [] }
        guard !state.library.syncing.contains(area) else { return [] }
        state.library.syncing.insert(area)
        state.notice = .edits(.syncing(count: state.library.syncing.count))
        return [.edits(.settle(area: area, keepMine: keepMine))]
    }

    /// With `sync = auto`, once the portal answered: every area whose edits wait.
    static func syncEditsByItself(_ state: inout AppState) -> [Effect] {
        guard state.preferences.syncsEditsByItself, !state.portal.network.isCutOff else { return [] }
        return startSyncing(&state, state.library.unsyncedEdits.filter { $0.value > 0 }.map(\.key), asked: false)
    }

    private static func startSyncing(_ state: inout AppState, _ areas: [ItemID], asked: Bool) -> [Effect] {
        let fresh = areas.filter { !state.library.syncing.contains($0) }.sorted { $0.rawValue < $1.rawValue }
        if asked {
            guard !fresh.isEmpty || !state.library.syncing.isEmpty else { state.notice = .edits(.nothingToSync); return [] }
            guard !state.portal.network.isCutOff else { state.notice = .edits(.offline); return [] }
        }
        guard !fresh.isEmpty else { return [] }
        state.library.syncing.formUnion(fresh)
        state.notice = .edits(.syncing(count: state.library.syncing.count))
        return fresh.map { .edits(.sync(area: $0)) }
    }
}
