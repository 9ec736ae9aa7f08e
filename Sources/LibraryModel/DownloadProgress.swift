import Foundation
import ArcGISModel
import Synchronization

/// How far an area's download has come, for progress bars: bytes on disk (resumed bytes included),
/// the total when known, and the rate over the last few seconds with the time it implies.
public struct DownloadProgress: Sendable, Equatable {
    public var bytes: Int64
    public var total: Int64?
    public var bytesPerSecond: Double?
    /// Once the packages are in: the operational layers' feature copies being fetched, `done` of
    /// `total` (the last part of an area's download, which moves no package bytes).
    public var featureCopies: FeatureCopyCount?

    public init(bytes: Int64, total: Int64?, bytesPerSecond: Double?, featureCopies: FeatureCopyCount? = nil) {
        self.bytes = bytes; self.total = total; self.bytesPerSecond = bytesPerSecond; self.featureCopies = featureCopies
    }

    /// 0…1, when the total is known.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(max(Double(bytes) / Double(total), 0), 1)
    }

    public var secondsRemaining: Double? {
        guard let total, let rate = bytesPerSecond, rate > 0 else { return nil }
        return Double(max(total - bytes, 0)) / rate
    }
}

/// How many of an area's feature layer copies are fetched.
public struct FeatureCopyCount: Sendable, Equatable {
    public var done: Int
    public var total: Int

    public init(done: Int, total: Int) { self.done = done; self.total = total }
}


/// What happened to an area's download: its lifecycle and its progress, in order per area.
public enum DownloadEvent: Sendable, Equatable {
    case queued(ItemID)
    /// Bytes began to move; `resumedFrom` > 0 when an earlier download's bytes were kept.
    case started(ItemID, resumedFrom: Int64)
    /// How far it has come (between `started` and its end; a few times a second at most).
    case progress(ItemID, DownloadProgress)
    /// Verified and recorded: the area is on this device.
    case finished(ItemID, DownloadRecord)
    case failed(ItemID, DownloadFailure)
    /// Stopped by the user; its partial files are gone.
    case cancelled(ItemID)
    /// Stopped to be continued later (quitting, offline); its partial files and control file stay.
    case paused(ItemID)
}

/// Why a download failed, as one sentence, and whether it was the network or the disk.
public struct DownloadFailure: Sendable, Equatable {
    public var sentence: String
    /// The portal could not be reached at all: worth trying again when the network is back (the
    /// browser waits for it).
    public var isUnreachable: Bool
    /// The retries ran out on the network — unreachable, or a link that stalled or kept dropping
    /// without progress: an outage rather than a fault to fix (`download` exits 3).
    public var isNetworkFailure: Bool
    public var isDiskFull: Bool

    public init(sentence: String, isUnreachable: Bool, isNetworkFailure: Bool? = nil, isDiskFull: Bool) {
        self.sentence = sentence; self.isUnreachable = isUnreachable; self.isDiskFull = isDiskFull
        self.isNetworkFailure = isNetworkFailure ?? isUnreachable
    }
}


/// A transfer's newest progress: written from the transfer thread at every piece, read by a
/// ticker that shows it a few times a second (a lock, not a task per piece).
public final class LatestProgress: Sendable {
    private let latest = Mutex<DownloadProgress?>(nil)

    public init() {}

    public func note(bytes: Int64, total: Int64?) {
        latest.withLock { $0 = DownloadProgress(bytes: bytes, total: total, bytesPerSecond: nil) }
    }

    public var current: DownloadProgress? { latest.withLock { $0 } }
}
