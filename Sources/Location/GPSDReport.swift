import Foundation
import Geometry
import MapbookCore

/// One line of gpsd's JSON protocol (version 3), as much of it as mapbook uses: TPV (time,
/// position, velocity) and SKY (satellites). Every number is checked before it is used: a latitude
/// of 91, NaN or 1e308 is no position.
public enum GPSDReport: Sendable, Equatable {
    case position(GPSFix)
    /// A TPV without a usable fix (mode 0 or 1, or a position that does not check out).
    case noFix
    case satellites(Satellites)
    /// Any other class (VERSION, DEVICES, WATCH, …), or a line that is not gpsd's.
    case other

    /// What asks gpsd to stream reports as JSON.
    public static let watch = Data(#"?WATCH={"enable":true,"json":true}"# .utf8 + [0x0A])

    /// The longest line read: gpsd's longest reports (SKY with many satellites) are a few KB.
    public static let longestLine = 64 * 1024

    public init(line: Data) {
        guard line.count <= Self.longestLine, let json = try? JSONValue(parsing: line) else { self = .other; return }
        switch json["class"]?.string {
        case "TPV": self = Self.tpv(json)
        case "SKY":
            // Newer gpsd counts in uSat/nSat; older ones list the satellites with `used`.
            let listed = json["satellites"]?.array ?? []
            let visible = json["nSat"]?.int(in: 0...1_000) ?? listed.count
            let used = json["uSat"]?.int(in: 0...1_000) ?? listed.count { $0["used"]?.bool == true }
            self = .satellites(Satellites(used: min(used, visible), visible: visible))
        default: self = .other
        }
    }

    private static func tpv(_ json: JSONValue) -> GPSDReport {
        guard let mode = json["mode"]?.int(in: 0...3), mode >= 2,
              let latitude = json["lat"]?.double, latitude.isFinite, abs(latitude) <= 90,
              let longitude = json["lon"]?.double, longitude.isFinite, abs(longitude) <= 180 else { return .noFix }
        func checked(_ key: String, _ range: ClosedRange<Double>) -> Double? {
            guard let value = json[key]?.double, value.isFinite, range.contains(value) else { return nil }
            return value
        }
        let time = json["time"]?.string.flatMap { text in
            (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
                ?? (try? Date(text, strategy: .iso8601))
        }
        return .position(GPSFix(dimension: mode == 3 ? .threeD : .twoD, position: GeoPoint(longitude: longitude, latitude: latitude),
                                altitude: mode == 3 ? (checked("altMSL", -1_000...100_000) ?? checked("alt", -1_000...100_000)) : nil,
                                accuracy: checked("eph", 0...1_000_000), track: checked("track", 0...360),
                                speed: checked("speed", 0...2_000), time: time))
    }
}
