import Foundation
import MapbookCore
import Geometry

/// Esri JSON feature sets (`query` answers, `outSR=4326`; a web map's feature collections, mostly in
/// Web Mercator): points, multipoints, paths and rings.
public enum EsriFeatures {
    /// The features of a feature set, and whether the server held more back (`exceededTransferLimit`).
    /// Coordinates are in `reference` (WGS84 when not said), or in the geometry's own.
    public static func features(in json: JSONValue, reference: SpatialReference? = nil) -> (features: [LayerFeature], exceededTransferLimit: Bool) {
        let reference = SpatialReference(json: json["spatialReference"]) ?? reference
        let features = (json["features"]?.array ?? []).map { feature in
            LayerFeature(geometry: geometry(feature["geometry"], reference: reference), attributes: feature["attributes"]?.object ?? [:])
        }
        return (features, json["exceededTransferLimit"]?.bool ?? (json["properties"]?["exceededTransferLimit"]?.bool ?? false))
    }

    /// A geometry in Esri JSON, brought to longitude/latitude from `reference` (or the geometry's
    /// own `spatialReference`; WGS84 when neither says); nil when it is missing, empty, has no finite
    /// coordinates or is in a system mapbook cannot project. Rings are closed if they were not;
    /// rings of fewer than three points are left out.
    public static func geometry(_ json: JSONValue?, reference: SpatialReference? = nil) -> GeoGeometry? {
        guard let json, json.object != nil else { return nil }
        let system = SpatialReference(json: json["spatialReference"]) ?? reference
        let wgs84: @Sendable (Double, Double) -> GeoPoint = { GeoPoint(longitude: $0, latitude: $1) }
        guard let project = system == nil ? wgs84 : system?.geographicPoint else { return nil }
        func geographic(_ x: Double, _ y: Double) -> GeoPoint? {
            guard x.isFinite, y.isFinite else { return nil }
            let p = project(x, y)
            return abs(p.longitude) <= 360 && abs(p.latitude) <= 90 ? p : nil
        }
        func point(_ v: JSONValue) -> GeoPoint? {
            guard let x = v[0]?.double, let y = v[1]?.double else { return nil }
            return geographic(x, y)
        }
        if let x = json["x"]?.double, let y = json["y"]?.double {
            return geographic(x, y).map { .points([$0]) }
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

    /// A geometry as Esri JSON in WGS84: what a copy on this device keeps.
    public static func json(_ geometry: GeoGeometry) -> JSONValue {
        func pair(_ p: GeoPoint) -> JSONValue { .array([.number(p.longitude), .number(p.latitude)]) }
        let wgs84: JSONValue = .object(["wkid": .number(4326)])
        switch geometry {
        case .points(let points) where points.count == 1:
            return .object(["x": .number(points[0].longitude), "y": .number(points[0].latitude), "spatialReference": wgs84])
        case .points(let points):
            return .object(["points": .array(points.map(pair)), "spatialReference": wgs84])
        case .lines(let lines):
            return .object(["paths": .array(lines.map { .array($0.map(pair)) }), "spatialReference": wgs84])
        case .polygons(let polygons):
            return .object(["rings": .array(polygons.flatMap { $0 }.map { .array($0.map(pair)) }), "spatialReference": wgs84])
        }
    }
}
