import MapbookCore
import LibraryModel
import ArcGISModel

/// Mobile map packages: downloaded from the portal (or the fleet mirror), removed from this device.
public enum PackagesFeature {
    /// What comes back from this feature's work (`Event.packages`).
    public enum Action: Sendable {
        case packageProgress(ItemID, DownloadProgress)
        case packageDownloaded(ItemID, title: String, Result<PackageListing, LoadFailure>)
        /// A package was deleted from this device, or why it could not be.
        case packageRemoved(title: String, Result<Void, LoadFailure>)
    }

    /// The work this feature asks for (`Effect.packages`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Download a portal's mobile map package onto this device (→ `packageProgress`, then `packageDownloaded`).
        case downloadPackage(ItemID, title: String)
        /// Delete a mobile map package from this device (→ `packageRemoved`).
        case removePackage(path: String, title: String)
    }
}

extension App {
    /// `PackagesFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: PackagesFeature.Action) -> [Effect] {
        switch action {
        case .packageProgress(let item, let progress):
            packageProgress(&state, item, progress)
            return []
        case .packageDownloaded(let item, let title, let result):
            packageDownloaded(&state, item, title: title, result)
            return []
        case .packageRemoved(let title, let result):
            switch result {
            case .success: state.notice = .removed(title: title)
            case .failure(let failure): state.notice = .problem(TerminalText.sanitizedLine(failure.sentence, maxLength: 300))
            }
            // The card was closed to ask: it comes back on the packages, listed afresh.
            return showMaps(&state, on: .packages)
        }
    }
}
