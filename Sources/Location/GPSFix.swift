import Foundation
import Geometry

/// A position from a receiver, every number checked: where, how well, which way and how fast.
public struct GPSFix: Sendable, Equatable {
    /// gpsd's `mode`: 2 a fix in the plane, 3 with height.
    public enum Dimension: Int, Sendable, Equatable { case twoD = 2, threeD = 3 }

    public var dimension: Dimension
    public var position: GeoPoint
    /// Metres above mean sea level (3D fixes).
    public var altitude: Double?
    /// The horizontal error gpsd estimates (`eph`), in metres: the accuracy circle's radius.
    public var accuracy: Double?
    /// Degrees from true north the receiver moves toward.
    public var track: Double?
    /// Metres a second over the ground.
    public var speed: Double?
    /// The fix's time, as the receiver says.
    public var time: Date?
    /// When gpsd's report of it was heard, by this machine's clock.
    public var heard: Date?

    public init(dimension: Dimension, position: GeoPoint, altitude: Double? = nil, accuracy: Double? = nil, track: Double? = nil,
                speed: Double? = nil, time: Date? = nil) {
        self.dimension = dimension; self.position = position; self.altitude = altitude; self.accuracy = accuracy
        self.track = track; self.speed = speed; self.time = time
    }
}

/// Satellites the receiver sees, and those it uses for the fix (gpsd's SKY).
public struct Satellites: Sendable, Equatable {
    public var used: Int
    public var visible: Int
    public init(used: Int, visible: Int) { self.used = used; self.visible = visible }
}

/// Where the location comes from and what it says now. Each state is shown as itself: a receiver
/// searching is not one that lost its fix, nor a gpsd that went away.
public enum LocationStatus: Sendable, Equatable {
    /// Connected to gpsd, no report from a receiver yet.
    case searching
    /// The receiver reports no fix (indoors, in a tunnel, just switched on).
    case noFix(Satellites?)
    case fix(GPSFix, Satellites?)
    /// The last fix, with no report for this many seconds.
    case stale(GPSFix, seconds: Int)
    /// gpsd cannot be reached or stopped answering: why, as a sentence.
    case unavailable(String)
    /// The position set in the config (`location = LON,LAT`), for a machine without a receiver.
    case fixed(GeoPoint)

    /// The status with its fix's times left out: what the screen shows. A receiver standing
    /// still reports the same thing each second, only later; that wakes nothing.
    public var withoutTimes: LocationStatus {
        func timeless(_ fix: GPSFix) -> GPSFix {
            var fix = fix
            fix.time = nil; fix.heard = nil
            return fix
        }
        switch self {
        case .fix(let fix, let satellites): return .fix(timeless(fix), satellites)
        case .stale(let fix, let seconds): return .stale(timeless(fix), seconds: seconds)
        case .searching, .noFix, .unavailable, .fixed: return self
        }
    }

    /// How far off the position may be, metres (gpsd's `eph`), when it says.
    public var accuracy: Double? {
        switch self {
        case .fix(let fix, _), .stale(let fix, _): fix.accuracy
        case .searching, .noFix, .unavailable, .fixed: nil
        }
    }

    /// The position to show, when there is one (a stale one too).
    public var position: GeoPoint? {
        switch self {
        case .fix(let fix, _), .stale(let fix, _): fix.position
        case .fixed(let point): point
        case .searching, .noFix, .unavailable: nil
        }
    }

    /// One line for the status bar and `mapbook where`: "3D fix ±17 m, 8 of 12 satellites".
    public var summary: String {
        switch self {
        case .searching: return "looking for a receiver"
        case .noFix(let satellites): return "no fix" + (satellites.map { ", \($0.used) of \($0.visible) satellites" } ?? "")
        case .fix(let fix, let satellites):
            let dimension = fix.dimension == .threeD ? "3D fix" : "2D fix"
            let accuracy = fix.accuracy.map { " ±" + Self.metres($0) } ?? ""
            return dimension + accuracy + (satellites.map { ", \($0.used) of \($0.visible) satellites" } ?? "")
        case .stale(_, let seconds): return "last fix \(seconds) s ago"
        case .unavailable(let why): return why
        case .fixed: return "the position set in the config"
        }
    }

    /// A few words for a crowded status bar: "3D ±17 m", "no fix", "fix 12 s old", "no gpsd".
    public var brief: String {
        switch self {
        case .searching: "searching"
        case .noFix: "no fix"
        case .fix(let fix, _): (fix.dimension == .threeD ? "3D" : "2D") + (fix.accuracy.map { " ±" + Self.metres($0) } ?? " fix")
        case .stale(_, let seconds): "fix \(seconds) s old"
        case .unavailable: "no gpsd"
        case .fixed: "set position"
        }
    }

    /// A position now (a fix, or the one the config sets): not searching, lost or stale.
    public var isCurrent: Bool {
        switch self {
        case .fix, .fixed: true
        case .searching, .noFix, .stale, .unavailable: false
        }
    }

    private static func metres(_ value: Double) -> String {
        value < 10 ? String(format: "%.1f m", value) : String(format: "%.0f m", value)
    }
}
