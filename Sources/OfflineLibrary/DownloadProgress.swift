import Foundation
import MapbookCore
import Synchronization
import ArcGISModel
import LibraryModel

/// Bytes per second over the last few seconds, from samples of a growing byte count: a burst or a
/// pause does not swing the estimate. A count that goes back (a restart from zero) starts over.
struct RateMeter {
    private var samples: [(time: Double, bytes: Int64)] = []
    private let window: Double

    init(window: Double = 5) { self.window = window }

    /// Adds a sample and returns the rate, once there is half a second of samples.
    mutating func adding(bytes: Int64, at now: Double) -> Double? {
        if let last = samples.last, bytes < last.bytes { samples.removeAll() }
        samples.append((now, bytes))
        while let first = samples.first, now - first.time > window, samples.count > 2 { samples.removeFirst() }
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.5 else { return nil }
        return Double(max(last.bytes - first.bytes, 0)) / (last.time - first.time)
    }
}

/// The byte count of each running download: set from the transfer threads, read by the queue's
/// ticker. (A lock, not an actor hop, per piece of a download: the transfer thread must not wait.)
final class ProgressCounters: Sendable {
    struct Count: Sendable { var bytes: Int64; var total: Int64?; var featureCopies: FeatureCopyCount? }
    private let counts = Mutex<[ItemID: Count]>([:])

    func set(_ id: ItemID, bytes: Int64, total: Int64?) {
        counts.withLock { $0[id] = Count(bytes: bytes, total: total, featureCopies: $0[id]?.featureCopies) }
    }

    func setCopying(_ id: ItemID, _ count: FeatureCopyCount) {
        counts.withLock { counts in
            var entry = counts[id] ?? Count(bytes: 0, total: nil)
            entry.featureCopies = count
            counts[id] = entry
        }
    }

    func remove(_ id: ItemID) { counts.withLock { _ = $0.removeValue(forKey: id) } }
    var current: [ItemID: Count] { counts.withLock { $0 } }
}

/// An area's bytes across its packages — those of finished packages and the current one's — and
/// the validator of the response being written. Fed from the transfer thread, read by the
/// control-file saver.
final class AreaByteCount: Sendable {
    private struct Counts { var finished: Int64 = 0, current: Int64 = 0, validator: String? }
    private let counts = Mutex(Counts())

    /// The current package has `bytes` on disk; returns the area's bytes so far.
    func update(bytes: Int64, validator: String?) -> Int64 {
        counts.withLock {
            $0.current = bytes
            if let validator { $0.validator = validator }
            return $0.finished + bytes
        }
    }

    /// The current package is done: its bytes count as finished, the next one starts at zero.
    func finishPackage(size: Int64) {
        counts.withLock {
            $0.finished += size
            $0.current = 0
            $0.validator = nil
        }
    }

    /// The current package's bytes and validator.
    var current: (bytes: Int64, validator: String?) { counts.withLock { ($0.current, $0.validator) } }
}
