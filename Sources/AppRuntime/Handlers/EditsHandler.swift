import AppModel
import ArcGISModel
import Editing
import EventLoop
import Foundation
import MapbookCore
import MapbookServices
import OfflineLibrary

/// Sends an area's edits back (`EditSyncer`, the one sync `mapbook edits sync` runs too) with the
/// portal's client, and says what became of them.
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
        case .sync(let area): sync(area)
        }
    }

    private func sync(_ area: ItemID) {
        let library = library
        tasks.track { [send, connection] in
            guard let client = await connection.client else {
                send(.edits(.syncFailed(area: area, sentence: "Not connected to the portal yet.")))
                return
            }
            do {
                let report = try await EditSyncer(client: client).sync(area: area, title: area.rawValue, library: library)
                let unsynced = try EditJournal(areaFolder: library.areaDirectory(area)).unsynced().count
                func first(_ pick: (EditSync.Outcome) -> String?) -> String? { report.entries.compactMap { pick($0.outcome) }.first }
                let summary = SyncSummary(synced: report.done, refused: report.refused, waiting: report.waiting,
                                          firstRefusal: report.entries.lazy.compactMap(\.refusal).first,
                                          firstWait: first { if case .waiting(let why) = $0 { why } else { nil } },
                                          serverChanges: report.serverChanges, at: Date())
                send(.edits(.synced(area: area, summary, unsynced: unsynced)))
            } catch {
                send(.edits(.syncFailed(area: area, sentence: error.userSentence)))
            }
        }
    }
}
