import Foundation
import MapbookCore
import Geometry

/// Esri JSON feature sets (`query` answers, `outSR=4326`): points, multipoints, paths and rings.
public enum EsriFeatures {
    /// The features of a feature set, and whether the server held more back (`exceededTransferLimit`).
    public static func features(in json: JSONValue) -> (features: [LayerFeature], exceededTransferLimit: Bool) {
        let features = (json["features"]?.array ?? []).map { feature in
            LayerFeature(geometry: geometry(feature["geometry"]), attributes: feature["attributes"]?.object ?? [:])
        }
        return (features, json["exceededTransferLimit"]?.bool ?? (json["properties"]?["exceededTransferLimit"]?.bool ?? false))
    }

    /// A geometry in Esri JSON; nil when it is missing, empty or has no finite coordinates. Rings are
    /// closed if they were not; rings of fewer than three points are left out.
    public static func geometry(_ json: JSONValue?) -> GeoGeometry? {
        guard let json, json.object != nil else { return nil }
        func point(_ v: JSONValue) -> GeoPoint? {
            guard let x = v[0]?.double, let y = v[1]?.double, abs(x) <= 360, abs(y) <= 90 else { return nil }
            return GeoPoint(longitude: x, latitude: y)
        }
        if let x = json["x"]?.double, let y = json["y"]?.double {
            return abs(x) <= 360 && abs(y) <= 90 ? .points([GeoPoint(longitude: x, latitude: y)]) : nil
        }
        if let points = json["points"] {
            let all = points.array.compactMap(point)
            return all.isEmpty ? nil : .points(all)
        }
        if let paths = json["paths"] {
            let lines = paths.array.map { $0.array.compactMap(point) }.filter { $0.count >= 2 }
            return lines.isEmpty ? nil : .lines(lines)
        }
        if let rings = json["rings"] {
            var closed: [[GeoPoint]] = []
            for ring in rings.array {
                var points = ring.array.compactMap(point)
                if let first = points.first, first != points.last { points.append(first) }
                if points.count >= 4 { closed.append(points) }
            }
            return closed.isEmpty ? nil : .polygons([closed])
        }
        return nil
    }
}
