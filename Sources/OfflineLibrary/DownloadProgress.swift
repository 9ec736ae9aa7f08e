import Foundation

/// How far an area's download has come, for progress bars: bytes on disk (resumed bytes included),
/// the total when known, and the rate over the last few seconds with the time it implies.
public struct DownloadProgress: Sendable, Equatable {
    public var bytes: Int64
    public var total: Int64?
    public var bytesPerSecond: Double?

    public init(bytes: Int64, total: Int64?, bytesPerSecond: Double?) {
        self.bytes = bytes; self.total = total; self.bytesPerSecond = bytesPerSecond
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

/// Turns a stream of byte counts into progress with a rate averaged over `window` (a burst or a
/// pause does not swing the estimate). Fed from the HTTP thread, read from anywhere.
final class ProgressMeter: @unchecked Sendable {
    private let lock = NSLock()
    private let window: Double
    private let total: Int64?
    private var finishedBytes: Int64 = 0
    private var currentBytes: Int64 = 0
    private var samples: [(time: Double, bytes: Int64)] = []
    /// The validator of the response being written, for the control file.
    private(set) var validator: String?

    init(total: Int64?, window: Double = 5) { self.total = total; self.window = window }

    /// The current package has `bytes` on disk.
    func update(bytes: Int64, validator: String?, now: Double = ProcessInfo.processInfo.systemUptime) -> DownloadProgress {
        lock.withLock {
            currentBytes = bytes
            if let validator { self.validator = validator }
            let all = finishedBytes + bytes
            samples.append((now, all))
            while let first = samples.first, now - first.time > window, samples.count > 2 { samples.removeFirst() }
            return progress(now: now)
        }
    }

    /// The current package is done: its bytes count as finished, the next one starts at zero.
    func finishPackage(size: Int64) {
        lock.withLock {
            finishedBytes += size
            currentBytes = 0
            validator = nil
        }
    }

    var current: (bytes: Int64, validator: String?) { lock.withLock { (currentBytes, validator) } }

    private func progress(now: Double) -> DownloadProgress {
        var rate: Double?
        if let first = samples.first, let last = samples.last, last.time - first.time >= 0.5 {
            rate = Double(max(last.bytes - first.bytes, 0)) / (last.time - first.time)
        }
        return DownloadProgress(bytes: finishedBytes + currentBytes, total: total, bytesPerSecond: rate)
    }
}
