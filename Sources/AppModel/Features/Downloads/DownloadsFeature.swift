import LibraryModel
import ArcGISModel

/// The areas on this device: downloads, their progress, removals.
public enum DownloadsFeature {
    /// What comes back from this feature's work (`Event.downloads`).
    public enum Action: Sendable {
        /// A download's lifecycle (queued, started, finished, failed, cancelled, paused).
        case download(DownloadEvent)
        /// An area's files are gone from this device.
        case removed(ItemID)
        case removeFailed(ItemID, String)
    }

    /// The work this feature asks for (`Effect.downloads`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Queue the area's download (→ `download`: its lifecycle and progress).
        case download(MapArea)
        case cancelDownload(ItemID)
        /// Delete what an interrupted download kept.
        case discardPartialDownload(ItemID)
        /// Stop the area's download if there is one, wait for it, then delete its files (→ `removed`
        /// or `removeFailed`).
        case removeDownload(ItemID, title: String)
        /// Stop every download, keeping its bytes to resume (the network went).
        case pauseDownloads
    }
}

extension App {
    /// `DownloadsFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: DownloadsFeature.Action) -> [Effect] {
        switch action {
        case .download(let download):
            return downloadEvent(&state, download)
        case .removed(let id):
            let previous = state.selectedRow
            state.library.removing.remove(id)
            state.library.downloads[id] = nil
            state.library.transfers[id] = nil
            state.library.partialBytes[id] = nil
            state.notice = .removed(title: state.title(of: id))
            // Offline, the removed area leaves the list.
            reselect(&state, previous)
            return []
        case .removeFailed(let id, let sentence):
            state.library.removing.remove(id)
            state.notice = .problem(sentence)
            return []
        }
    }
}
