import Foundation
import Geometry
import MapbookCore

/// A recorded track: its name, when it started, its points in order.
public struct Track: Sendable, Equatable {
    public var id: String
    public var name: String
    public var started: Date
    public var points: [TrackPoint]

    public init(id: String, name: String, started: Date, points: [TrackPoint]) {
        self.id = id; self.name = name; self.started = started; self.points = points
    }

    /// Metres along its points.
    public var length: Double { Geodesy.length(points.map(\.position)) }

    /// GPX 1.1 (topografix.com/GPX/1/1): one `trk` of one `trkseg`, each point with its height and
    /// time, its accuracy in metres as `mapbook:accuracy` among its extensions (GPX's `hdop` is a
    /// dilution, not metres).
    public var gpx: String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#,
                     #"<gpx version="1.1" creator="mapbook" xmlns="http://www.topografix.com/GPX/1/1" xmlns:mapbook="https://mapbook.invalid/gpx/1">"#,
                     "  <metadata><name>\(Self.escaped(name))</name><time>\(Self.time(started))</time></metadata>",
                     "  <trk>", "    <name>\(Self.escaped(name))</name>", "    <trkseg>"]
        for point in points {
            var inner = ""
            if let altitude = point.altitude, altitude.isFinite { inner += "<ele>\(Self.number(altitude, places: 2))</ele>" }
            inner += "<time>\(Self.time(point.time))</time>"
            if let accuracy = point.accuracy, accuracy.isFinite {
                inner += "<extensions><mapbook:accuracy>\(Self.number(accuracy, places: 1))</mapbook:accuracy></extensions>"
            }
            lines.append("      <trkpt lat=\"\(Self.number(point.position.latitude, places: 7))\" lon=\"\(Self.number(point.position.longitude, places: 7))\">\(inner)</trkpt>")
        }
        lines += ["    </trkseg>", "  </trk>", "</gpx>", ""]
        return lines.joined(separator: "\n")
    }

    /// A GeoJSON (RFC 7946) FeatureCollection of one LineString feature, with each point's time
    /// and accuracy in `coordinateProperties` (as GPX converters write them).
    public var geoJSON: JSONValue {
        let coordinates: [JSONValue] = points.map { point in
            var pair: [JSONValue] = [.number(Self.rounded(point.position.longitude)), .number(Self.rounded(point.position.latitude))]
            if let altitude = point.altitude, altitude.isFinite { pair.append(.number((altitude * 100).rounded() / 100)) }
            return .array(pair)
        }
        let properties: [String: JSONValue] = [
            "name": .string(name), "id": .string(id), "started": .string(Self.time(started)), "points": .number(Double(points.count)),
            "length": .number(length.rounded()),
            "coordinateProperties": .object([
                "times": .array(points.map { .string(Self.time($0.time)) }),
                "accuracy": .array(points.map { point in point.accuracy.flatMap { $0.isFinite ? .number($0) : nil } ?? .null }),
            ]),
        ]
        return .object(["type": .string("FeatureCollection"), "features": .array([.object([
            "type": .string("Feature"), "properties": .object(properties),
            "geometry": .object(["type": .string("LineString"), "coordinates": .array(coordinates)]),
        ])])])
    }

    static func rounded(_ degrees: Double) -> Double { (degrees * 1e7).rounded() / 1e7 }

    static func number(_ value: Double, places: Int) -> String { String(format: "%.\(places)f", value) }

    /// ISO 8601 in UTC to the millisecond, as GPX and GeoJSON readers take it.
    public static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }

    /// Text for XML: the five characters with entities, and no control characters (XML 1.0 forbids them).
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
