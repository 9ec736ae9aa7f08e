import Foundation
import Geometry

/// A point of a recorded track: where, how well (gpsd's `eph`, metres) and when.
public struct TrackPoint: Sendable, Equatable {
    public var position: GeoPoint
    public var altitude: Double?
    public var accuracy: Double?
    public var time: Date

    public init(position: GeoPoint, altitude: Double? = nil, accuracy: Double? = nil, time: Date) {
        self.position = position; self.altitude = altitude; self.accuracy = accuracy; self.time = time
    }
}

/// Which fixes a track keeps, one rule for the browser and `mapbook tracks record`: a point once
/// the receiver has moved `minimumDistance` from the last one kept and `minimumInterval` has
/// passed (a 10 Hz or 100 Hz receiver does not fill the file; standing still adds nothing), never
/// a fix worse than `worstAccuracy`, one older than the last (time going backwards), or one
/// farther than `fastest` allows (a fix 1,000 km off) — unless the receiver insists three times
/// running: then the track goes on from there. At most `mostPoints` points.
public struct TrackRecorder: Sendable, Equatable {
    public var minimumInterval: TimeInterval = 1
    public var minimumDistance: Double = 5
    public var worstAccuracy: Double = 100
    /// Metres a second: faster than anything a field worker rides.
    public var fastest: Double = 150
    public static let mostPoints = 500_000

    public private(set) var last: TrackPoint?
    /// The last point was timed by the receiver (else when it was heard): two times are compared
    /// only when both come from the same clock.
    private var lastTimedByReceiver = true
    public private(set) var count = 0
    /// Metres along the points kept.
    public private(set) var length = 0.0
    private var jumpsRunning = 0

    /// Why the last fix offered was not kept, when there is something to say.
    public enum Refusal: Error, Sendable, Equatable {
        case tooSoonOrTooNear, tooInaccurate(Double), older, jump(meters: Double), full
    }

    public init() {}

    /// Resumes counting after `points` kept before (a track read back from its file).
    public init(continuing points: [TrackPoint]) {
        last = points.last
        count = points.count
        length = Geodesy.length(points.map(\.position))
    }

    /// The point to keep for `fix` (timed by the receiver, else when it was heard, else `now`),
    /// or why not.
    public mutating func take(_ fix: GPSFix, now: Date) -> Result<TrackPoint, Refusal> {
        guard count < Self.mostPoints else { return .failure(.full) }
        if let accuracy = fix.accuracy, accuracy > worstAccuracy { return .failure(.tooInaccurate(accuracy)) }
        let point = TrackPoint(position: fix.position, altitude: fix.altitude, accuracy: fix.accuracy, time: fix.time ?? fix.heard ?? now)
        let timedByReceiver = fix.time != nil
        if let last {
            // A receiver's clock and this machine's can be months apart: across them, no order.
            let seconds = timedByReceiver == lastTimedByReceiver ? point.time.timeIntervalSince(last.time) : minimumInterval
            guard seconds >= 0 else { return .failure(.older) }
            let meters = Geodesy.distance(last.position, point.position)
            guard seconds >= minimumInterval, meters >= minimumDistance else { return .failure(.tooSoonOrTooNear) }
            if meters > fastest * max(seconds, 1) {
                jumpsRunning += 1
                guard jumpsRunning >= 3 else { return .failure(.jump(meters: meters)) }
            } else {
                length += meters
            }
        }
        jumpsRunning = 0
        last = point
        lastTimedByReceiver = timedByReceiver
        count += 1
        return .success(point)
    }
}
