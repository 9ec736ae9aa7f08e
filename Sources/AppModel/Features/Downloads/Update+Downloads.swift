import Foundation
import MapbookCore
import LibraryModel
import ArcGISModel

/// Downloads: asking for them, and what the queue says back.
extension App {
    static func downloadEvent(_ state: inout AppState, _ event: DownloadEvent) -> [Effect] {
        switch event {
        case .queued(let id):
            if state.library.transfers[id] == nil { state.library.transfers[id] = .queued }
        case .started:
            break
        case .progress(let id, let progress):
            if state.library.transfers[id]?.isActive == true { state.library.transfers[id] = .running(progress) }
        case .finished(let id, let record):
            state.library.transfers[id] = nil
            state.library.partialBytes[id] = nil
            let updated = state.library.downloads[id] != nil
            state.library.downloads[id] = record
            state.notice = .downloaded(title: state.title(of: id), size: record.size, updated: updated)
        case .failed(let id, let failure):
            keepPartialBytes(&state, id)
            if failure.isUnreachable {
                state.library.transfers[id] = .waitingForNetwork
                return [.catalog(.checkNetwork)]
            }
            state.library.transfers[id] = .failed(failure.sentence)
            state.notice = .downloadFailed(title: state.title(of: id), sentence: failure.sentence)
        case .cancelled(let id):
            state.library.transfers[id] = nil
            state.library.partialBytes[id] = nil
            state.notice = .cancelled(title: state.title(of: id))
        case .paused(let id):
            keepPartialBytes(&state, id)
            if state.library.transfers[id] != .waitingForNetwork { state.library.transfers[id] = nil }
        }
        return []
    }

    /// A download that stopped keeps its bytes on disk: what it had reached is what `x` removes.
    private static func keepPartialBytes(_ state: inout AppState, _ id: ItemID) {
        if case .running(let progress)? = state.library.transfers[id], progress.bytes > 0 { state.library.partialBytes[id] = progress.bytes }
    }

    /// Once the portal answers, downloads an earlier run left part way go on by themselves (unless
    /// the `resume-downloads` setting says not to), and areas of your own the servers were
    /// preparing are followed again; once a session.
    static func resumeInterrupted(_ state: inout AppState) -> [Effect] {
        guard state.library.resumesInterrupted, !state.library.hasResumedInterrupted, state.portal.isConnected, !state.portal.network.isCutOff else { return [] }
        state.library.hasResumedInterrupted = true
        return state.catalog.areas.indices.flatMap { index -> [Effect] in
            guard case .paused = state.status(ofArea: index) else { return [] }
            return startDownload(&state, state.catalog.areas[index])
        } + [.newArea(.resumeAreaExports)]
    }

    /// `q`: while downloads run, asks first (they stop with their bytes kept and resume next time).
    static func quit(_ state: inout AppState) {
        let running = state.activeTransferCount
        guard running > 0 else {
            state.handoff.isQuitting = true
            return
        }
        let what = running == 1 ? "1 download running" : "\(running) downloads running"
        state.overlay = .confirm(Confirmation(question: "\(what) — quit and resume \(running == 1 ? "it" : "them") next time?",
                                              detail: "What has arrived is kept on this device.", action: .quit))
    }

    static func startDownload(_ state: inout AppState, _ area: MapArea) -> [Effect] {
        guard state.portal.isConnected else {
            state.notice = .notConnected
            return []
        }
        state.library.transfers[area.item.id] = .queued
        return [.downloads(.download(area))]
    }

    /// `d`: the selected area, unless it is on this device and current already.
    static func download(_ state: inout AppState) -> [Effect] {
        guard let index = state.selectedAreaIndex else { state.notice = .selectAnArea(to: "download"); return [] }
        let area = state.catalog.areas[index]
        switch state.status(ofArea: index) {
        case .ready, .failed, .waitingForNetwork, .paused:
            guard !state.portal.network.isCutOff else { state.notice = .offlineDownloads; return [] }
            return startDownload(&state, area)
        case .downloaded(_, _, let updateAvailable):
            if updateAvailable { return updateSelectedArea(&state) }
            state.notice = .upToDate(title: state.title(of: area.item.id))
        case .queued, .downloading, .preparing:
            break
        case .checking:
            state.notice = .listingAreas(known: state.catalog.areas.filter { !$0.packagesPending }.count, of: state.catalog.areas.count)
        case .packaging, .packagingFailed, .unavailable, .unreadable:
            state.notice = NotDownloadableReason(area).map { .notDownloadable(title: state.title(of: area.item.id), $0) }
        }
        return []
    }

    /// `D`: every area that can be downloaded and is not here (or has an update).
    static func downloadAll(_ state: inout AppState) -> [Effect] {
        guard !state.portal.network.isCutOff else { state.notice = .offlineDownloads; return [] }
        var effects: [Effect] = []
        var count = 0
        for index in state.catalog.areas.indices {
            switch state.status(ofArea: index) {
            case .ready, .failed, .waitingForNetwork, .paused, .downloaded(_, _, true):
                effects += startDownload(&state, state.catalog.areas[index])
                count += 1
            default: break
            }
        }
        if state.notice != .notConnected { state.notice = count == 0 ? .allDownloaded : .downloadingCount(count) }
        return effects
    }

    /// `u`: downloads the new packages beside the old ones, swapped in once verified.
    static func updateSelectedArea(_ state: inout AppState) -> [Effect] {
        guard let index = state.selectedAreaIndex, case .downloaded(_, _, let available) = state.status(ofArea: index) else {
            state.notice = .onlyDownloadedUpdates
            return []
        }
        guard available else { state.notice = .noUpdate; return [] }
        guard !state.portal.network.isCutOff else { state.notice = .offlineUpdates; return [] }
        return startDownload(&state, state.catalog.areas[index])
    }

    /// `c`: stops the selected area's download and deletes its partial files (also those an earlier
    /// run left).
    static func cancelDownload(_ state: inout AppState) -> [Effect] {
        guard let index = state.selectedAreaIndex else {
            state.notice = .noDownloadToCancel
            return []
        }
        let id = state.catalog.areas[index].item.id
        switch state.library.transfers[id] {
        case nil where (state.library.partialBytes[id] ?? 0) == 0:
            state.notice = .noDownloadToCancel
            return []
        case .queued?, .running?:
            return [.downloads(.cancelDownload(id))]
        case nil, .failed?, .waitingForNetwork?:
            state.library.transfers[id] = nil
            state.library.partialBytes[id] = nil
            state.notice = .cancelled(title: state.title(of: id))
            return [.downloads(.discardPartialDownload(id))]
        }
    }

    /// `x`: asks first; removing deletes the packages and any partial download.
    static func askToRemove(_ state: inout AppState) {
        guard let index = state.selectedAreaIndex else { state.notice = .selectAnArea(to: "remove"); return }
        let id = state.catalog.areas[index].item.id, title = state.title(of: id)
        guard let size = state.library.downloads[id]?.size ?? state.library.partialBytes[id] else {
            state.notice = .notOnDevice(title: title)
            return
        }
        state.overlay = .confirm(Confirmation(question: "Remove \(title) from this device?",
                                              detail: "\(Format.bytes(size)) will be deleted. It can be downloaded again."
                                                  + (state.library.editsWaiting(in: id).map { " Its \($0) stay on this device." } ?? ""),
                                              action: .remove(id)))
    }

    static func confirm(_ state: inout AppState, _ yes: Bool) -> [Effect] {
        guard case .confirm(let confirmation)? = state.overlay else { return [] }
        state.overlay = nil
        guard yes else {
            // Staying: a web map chosen in the Maps card is not opened after all.
            if confirmation.action == .quit { state.handoff.nextWebMap = nil; state.handoff.nextPackage = nil }
            if case .removePackage = confirmation.action { return showMaps(&state, on: .packages) }
            return []
        }
        switch confirmation.action {
        case .quit:
            state.handoff.isQuitting = true
            return []
        case .remove(let id):
            // The runtime stops the area's download and waits for it before deleting anything.
            state.library.removing.insert(id)
            return [.downloads(.removeDownload(id, title: state.title(of: id)))]
        case .deletePin(let id):
            state.notice = .pins(.pinDeleted(state.pins.all.first { $0.id == id }?.title ?? ""))
            return [.pins(.deletePin(id: id))]
        case .openLink(let link):
            return [.pins(.openLink(link))]
        case .deleteFeature(let draft):
            return saveEdit(&state, draft)
        case .settleConflicts(let area, let keepMine):
            return settleConflicts(&state, area, keepMine: keepMine)
        case .removePackage(let path, let title):
            return [.packages(.removePackage(path: path, title: title))]
        }
    }
}
