import Foundation
import MapRender
import MapbookCore
import LibraryModel
import ArcGISModel
import TerminalCanvas

/// A download the model is tracking: asked for, under way, or stopped without finishing.
public enum Transfer: Equatable, Sendable {
    case queued
    case running(DownloadProgress)
    /// One sentence; `r` retries, resuming from the bytes kept.
    case failed(String)
    /// Stopped because the network went; resumes when it is back.
    case waitingForNetwork

    /// Queued or moving bytes.
    public var isActive: Bool {
        switch self {
        case .queued, .running: true
        case .failed, .waitingForNetwork: false
        }
    }
}

/// A question the user must answer before something is destroyed.
public struct Confirmation: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case remove(ItemID)
        /// Delete a mobile map package from this device.
        case removePackage(path: String, title: String)
        /// Quit while downloads run (they stop with their bytes kept, to resume next time).
        case quit
        case deletePin(id: String)
        /// Hand an http(s) link to the browser.
        case openLink(String)
        /// Keep the deletion of a feature in its area's journal.
        case deleteFeature(EditDraft)
        /// Sync the area's changes in conflict: as they are, or with the server's values there.
        case settleConflicts(ItemID, keepMine: Bool)
    }
    public var question: String
    public var detail: String
    public var action: Action

    public init(question: String, detail: String, action: Action) {
        self.question = question; self.detail = detail; self.action = action
    }

    /// The keys that answer, and what each does.
    public var answers: String {
        switch action {
        case .remove, .removePackage: "y yes, remove · n no, keep it"
        case .quit: "y yes, quit · n no, stay"
        case .deletePin, .deleteFeature: "y yes, delete · n no, keep it"
        case .settleConflicts(_, let keepMine): keepMine ? "y yes, send mine · n not now" : "y yes, take the server's · n not now"
        case .openLink: "y yes, open it · n no"
        }
    }
}

/// What one area's row says, derived from the portal's status, the library and any transfer.
public enum AreaStatus: Equatable, Sendable {
    case packaging
    case packagingFailed
    /// A packaging status mapbook does not know, as the portal gave it.
    case unavailable(String)
    /// The portal's description of the area could not be read; the reason, one sentence.
    case unreadable(String)
    /// Listed; its packages are still being asked for.
    case checking
    /// Downloadable, not on this device; the download size.
    case ready(Int64)
    case queued
    case downloading(DownloadProgress, isUpdate: Bool)
    case waitingForNetwork
    /// An earlier download stopped part way (mapbook quit or was killed): its bytes on disk and the
    /// area's size; whether it resumes by itself once the portal answers.
    case paused(bytes: Int64, of: Int64, resumesByItself: Bool)
    case failed(String)
    case downloaded(size: Int64, at: Date, updateAvailable: Bool)
    /// An area of your own the servers are preparing: how far ("Preparing on the server 40 %").
    case preparing(String)
}

extension AppState {
    public func status(ofArea index: Int) -> AreaStatus {
        guard catalog.areas.indices.contains(index) else { return .unavailable("unknown") }
        let area = catalog.areas[index], id = area.item.id
        let record = library.downloads[id]
        if let label = library.preparing[id] { return .preparing(label) }
        switch library.transfers[id] {
        case .queued?: return .queued
        case .running(let progress)?: return .downloading(progress, isUpdate: record != nil)
        case .waitingForNetwork?: return .waitingForNetwork
        case .failed(let sentence)?: return .failed(sentence)
        case nil: break
        }
        if let record {
            return .downloaded(size: record.size, at: record.downloadedAt, updateAvailable: record.needsUpdate(comparedWith: area))
        }
        if let bytes = library.partialBytes[id], bytes > 0 {
            return .paused(bytes: bytes, of: area.size, resumesByItself: library.resumesInterrupted)
        }
        if let reason = area.unavailableReason { return .unreadable(reason) }
        if area.packagesPending { return .checking }
        switch area.status {
        case .complete: return .ready(area.size)
        case .processing: return .packaging
        case .failed: return .packagingFailed
        case .other(let value): return .unavailable(value)
        case .unknown: return .unavailable("no packaging status")
        }
    }

    public func isDownloaded(_ index: Int) -> Bool {
        catalog.areas.indices.contains(index) && library.downloads[catalog.areas[index].item.id] != nil
    }

    /// On this device, on its way (asked for this session), or part way there (bytes kept from
    /// before): what stays listed while the portal cannot be reached.
    public func isOnDeviceOrOnItsWay(_ index: Int) -> Bool {
        guard catalog.areas.indices.contains(index) else { return false }
        let id = catalog.areas[index].item.id
        return library.downloads[id] != nil || library.transfers[id] != nil || (library.partialBytes[id] ?? 0) > 0
    }

    /// Downloads queued or moving bytes.
    public var activeTransferCount: Int { library.transfers.values.filter(\.isActive).count }
}

extension DownloadProgress {
    /// The figures beside a download's bar, worded once for the list, the details, the plain mode
    /// and the command line: `47%  3.1/6.6 MiB  1.2 MiB/s  0:03`, then `copying layers 1/2`.
    public var figures: String {
        ProgressText.figures(bytes: bytes, total: total, bytesPerSecond: bytesPerSecond,
                             copied: featureCopies?.done, layers: featureCopies?.total)
    }

    /// The figures in at most `width` cells: the amounts go first, then the rate; the percentage
    /// and the time left stay.
    public func figures(fitting width: Int) -> String {
        featureCopies == nil ? ProgressText.figures(bytes: bytes, total: total, bytesPerSecond: bytesPerSecond, fitting: width) : figures
    }

    /// One running download's line for the command line, in at most `width` cells:
    /// `Acadia National Park       ▕█████▌      ▏ 47%  3.1/6.6 MiB  1.2 MiB/s  0:03`. The title
    /// gives way first (down to 12 cells), then the figures shrink as `figures(fitting:)` says.
    public func line(title: String, width: Int) -> String {
        let bar = ProgressText.bar(fraction: fraction, width: 14, ascii: false)
        let full = figures
        let titleWidth = min(max(width - DisplayWidth.of(bar) - DisplayWidth.of(full) - 2, 12), 28)
        let cut = DisplayWidth.truncated(TerminalText.sanitizedLine(title), to: titleWidth)
        let name = cut + String(repeating: " ", count: titleWidth - DisplayWidth.of(cut))
        let room = max(width - titleWidth - DisplayWidth.of(bar) - 2, 4)
        return name + " " + bar + " " + figures(fitting: room)
    }
}
