import AppModel
import EventLoop
import Foundation
import MapbookCore
import OfflineLibrary
import ArcGISModel

/// Download commands — queue, cancel, discard, remove, pause — through one ordered lane, so a
/// cancel never overtakes the enqueue before it. Before the portal connects there is no queue:
/// removing still works, from the library itself.
@UIActor
final class DownloadsHandler {
    private let library: OfflineLibrary
    private let connection: PortalConnection
    private let send: EventSink
    private let lane: AsyncStream<@Sendable () async -> Void>.Continuation

    init(library: OfflineLibrary, connection: PortalConnection, send: EventSink, tasks: TaskTracker) {
        self.library = library; self.connection = connection; self.send = send
        let (jobs, lane) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.lane = lane
        tasks.track { for await job in jobs { await job() } }
    }

    func download(_ area: MapArea) { inLane { queue in await queue?.enqueue(area) } }

    func cancel(_ id: ItemID) { inLane { queue in await queue?.cancel(id) } }

    func discardPartial(_ id: ItemID) {
        let library = library
        inLane { _ in library.removePartialDownload(id) }
    }

    func remove(_ id: ItemID, title: String) {
        let (library, send) = (library, send)
        inLane { queue in
            do {
                if let queue { try await queue.remove(id, title: title) } else { try library.removeDownload(id, title: title) }
                await send(.downloads(.removed(id)))
            } catch {
                await send(.downloads(.removeFailed(id, TerminalText.sanitizedLine(error.userSentence, maxLength: 400))))
            }
        }
    }

    func pauseAll() { inLane { queue in await queue?.pauseAll() } }

    /// Ends the lane once the jobs sent so far have run.
    func finish() { lane.finish() }

    /// Runs `job` after every download command sent before it has run.
    private func inLane(_ job: @escaping @Sendable (DownloadQueue?) async -> Void) {
        let queue = connection.queue
        lane.yield { await job(queue) }
    }
}

extension DownloadsHandler {
    /// Does the work `DownloadsFeature` asks for.
    func perform(_ effect: DownloadsFeature.Effect) {
        switch effect {
        case .download(let area): download(area)
        case .cancelDownload(let id): cancel(id)
        case .discardPartialDownload(let id): discardPartial(id)
        case .removeDownload(let id, let title): remove(id, title: title)
        case .pauseDownloads: pauseAll()
        }
    }
}
