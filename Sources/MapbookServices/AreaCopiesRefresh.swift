import ArcGISModel
import ArcGISPortal
import Editing
import Foundation
import Geometry
import MapbookCore
import OfflineLibrary

/// The server's changes brought down into an area whose layers are kept as copies (an area with no
/// geodatabase of its own): after a sync, each copy is fetched again from its service — the edits
/// just sent and what others changed meanwhile — and swapped in whole; the synced edits the fresh
/// copies now hold are folded out of the journal. A copy that cannot be fetched leaves every copy
/// as it was, and the journal too, so the area never shows less than before.
public enum AreaCopiesRefresh {
    /// Fetches the area's copies again; the sentence says what came down, or why nothing did.
    public static func refresh(area id: ItemID, extent: GeoExtent, webMapLayers: [WebMapLayer], library: OfflineLibrary,
                               client: PortalClient, journal: EditJournal) async -> String {
        let existing = library.featureCopies(id).copies
        guard !existing.isEmpty else { return "The area keeps no copies of layers to bring the server's changes into." }
        var layers: [WebMapLayer] = []
        for copy in existing where !layers.contains(where: { ($0.title ?? $0.id) == copy.title }) {
            guard let layer = webMapLayers.first(where: { ($0.title ?? $0.id) == copy.title }) else {
                return "The web map no longer has the layer \(TerminalText.sanitizedLine(copy.title, maxLength: 60)); download the area again for the server's changes."
            }
            layers.append(layer)
        }
        // Captured before the fetch: an edit synced later by another process is not in what comes down.
        let titles = Set(existing.map(\.title))
        let foldable = ((try? journal.all()) ?? []).filter { $0.status == .synced && titles.contains($0.layer.title) }.map(\.sequence)
        let files = await FeatureCopies.fetch(layers, within: extent, client: client)
        for file in files {
            guard let copy = FeatureCopies.read(file) else { return "A layer's fresh copy could not be read; the area keeps its copies as they were." }
            if let problem = copy.problem {
                return "The server's changes were not brought down (\(TerminalText.sanitizedLine(copy.title, maxLength: 60)): \(TerminalText.sanitizedLine(problem, maxLength: 200))); the area keeps its copies as they were."
            }
        }
        do {
            try library.saveFeatureCopies(files, for: id)
            try journal.fold(foldable)
        } catch {
            return "The server's changes were not kept: \(error.userSentence)"
        }
        let count = files.count
        return "The server's changes came down: \(count) layer\(count == 1 ? "" : "s") fetched again."
    }
}
