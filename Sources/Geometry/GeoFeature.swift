import Foundation
import MapbookCore

/// A longitude/latitude position in degrees.
public struct GeoPoint: Sendable, Equatable, Hashable {
    public var longitude: Double
    public var latitude: Double

    public init(longitude: Double, latitude: Double) { self.longitude = longitude; self.latitude = latitude }
}

/// Geometry in longitude/latitude: the shapes of GeoJSON, multi-part always.
public enum GeoGeometry: Sendable, Equatable {
    case points([GeoPoint])
    case lines([[GeoPoint]])
    /// Polygons, each a list of rings: the first its outer boundary, the rest holes.
    case polygons([[[GeoPoint]]])

    public var extent: GeoExtent? {
        let all: [GeoPoint]
        switch self {
        case .points(let p): all = p
        case .lines(let l): all = l.flatMap { $0 }
        case .polygons(let p): all = p.flatMap { $0.flatMap { $0 } }
        }
        guard let first = all.first else { return nil }
        return all.dropFirst().reduce(GeoExtent(xmin: first.longitude, ymin: first.latitude,
                                                xmax: first.longitude, ymax: first.latitude)) { e, p in
            GeoExtent(xmin: min(e.xmin, p.longitude), ymin: min(e.ymin, p.latitude),
                      xmax: max(e.xmax, p.longitude), ymax: max(e.ymax, p.latitude))
        }
    }

    /// The same shape with polygons' rings wound as ArcGIS reads them: outer rings clockwise,
    /// holes counter-clockwise (GeoJSON winds them the other way).
    public var esriWound: GeoGeometry {
        guard case .polygons(let polygons) = self else { return self }
        return .polygons(polygons.map { polygon in
            polygon.enumerated().map { index, ring in
                let twice = zip(ring, ring.dropFirst() + ring.prefix(1)).reduce(0.0) { $0 + ($1.1.longitude - $1.0.longitude) * ($1.1.latitude + $1.0.latitude) }
                // Positive: clockwise.
                return (twice > 0) == (index == 0) ? ring : ring.reversed()
            }
        })
    }
}

/// A feature: geometry and properties (kept in key order, so whatever is built from it is stable).
public struct GeoFeature: Sendable, Equatable {
    public var id: UInt64?
    public var geometry: GeoGeometry
    public var properties: [(key: String, value: JSONValue)]

    public init(id: UInt64? = nil, geometry: GeoGeometry, properties: [(key: String, value: JSONValue)] = []) {
        self.id = id; self.geometry = geometry; self.properties = properties
    }

    public static func == (a: GeoFeature, b: GeoFeature) -> Bool {
        a.id == b.id && a.geometry == b.geometry && a.properties.elementsEqual(b.properties) { $0 == $1 }
    }

    public func property(_ key: String) -> JSONValue? { properties.first { $0.key == key }?.value }
}

/// Reads GeoJSON (RFC 7946) feature collections: Point, LineString, Polygon and their Multi forms.
/// Features whose geometry is missing, empty or of another type are left out.
public enum GeoJSON {
    public struct InvalidDocument: Error, Sendable {}

    public static func features(from data: Data) throws -> [GeoFeature] {
        let json = try JSONValue(parsing: data)
        guard json["type"]?.string == "FeatureCollection" else { throw InvalidDocument() }
        return (json["features"]?.array ?? []).compactMap { feature in
            guard let geometry = geometry(feature["geometry"]) else { return nil }
            let properties = (feature["properties"]?.object ?? [:]).sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
            let id = feature["id"]?.int64.flatMap { $0 >= 0 ? UInt64($0) : nil }
            return GeoFeature(id: id, geometry: geometry, properties: properties)
        }
    }

    public static func geometry(_ json: JSONValue?) -> GeoGeometry? {
        guard let json, let type = json["type"]?.string, let coordinates = json["coordinates"] else { return nil }
        func point(_ v: JSONValue) -> GeoPoint? {
            guard let lon = v[0]?.double, let lat = v[1]?.double else { return nil }
            return GeoPoint(longitude: lon, latitude: lat)
        }
        func line(_ v: JSONValue) -> [GeoPoint] { v.array.compactMap(point) }
        func polygon(_ v: JSONValue) -> [[GeoPoint]] { v.array.map(line).filter { $0.count >= 3 } }
        let result: GeoGeometry
        switch type {
        case "Point": result = .points(point(coordinates).map { [$0] } ?? [])
        case "MultiPoint": result = .points(line(coordinates))
        case "LineString": result = .lines([line(coordinates)].filter { $0.count >= 2 })
        case "MultiLineString": result = .lines(coordinates.array.map(line).filter { $0.count >= 2 })
        case "Polygon": result = .polygons([polygon(coordinates)].filter { !$0.isEmpty })
        case "MultiPolygon": result = .polygons(coordinates.array.map(polygon).filter { !$0.isEmpty })
        default: return nil
        }
        return result.extent == nil ? nil : result
    }
}

extension GeoJSON {
    /// A geometry as GeoJSON: Point or MultiPoint, LineString or MultiLineString, Polygon or
    /// MultiPolygon, the single form when there is one part.
    public static func json(_ geometry: GeoGeometry) -> JSONValue {
        func position(_ p: GeoPoint) -> JSONValue { .array([.number(p.longitude), .number(p.latitude)]) }
        func line(_ l: [GeoPoint]) -> JSONValue { .array(l.map(position)) }
        func polygon(_ rings: [[GeoPoint]]) -> JSONValue { .array(rings.map(line)) }
        let (type, coordinates): (String, JSONValue)
        switch geometry {
        case .points(let p): (type, coordinates) = p.count == 1 ? ("Point", position(p[0])) : ("MultiPoint", line(p))
        case .lines(let l): (type, coordinates) = l.count == 1 ? ("LineString", line(l[0])) : ("MultiLineString", .array(l.map(line)))
        case .polygons(let p): (type, coordinates) = p.count == 1 ? ("Polygon", polygon(p[0])) : ("MultiPolygon", .array(p.map(polygon)))
        }
        return .object(["type": .string(type), "coordinates": coordinates])
    }

    /// A FeatureCollection (RFC 7946) of features with their properties; a nil geometry stays null.
    public static func featureCollection(_ features: [(geometry: GeoGeometry?, properties: [String: JSONValue])]) -> JSONValue {
        .object(["type": .string("FeatureCollection"), "features": .array(features.map { feature in
            .object(["type": .string("Feature"), "properties": .object(feature.properties),
                     "geometry": feature.geometry.map(json) ?? .null])
        })])
    }
}

extension GeoGeometry {
    /// Whether a polygon covers the point (even–odd over all its rings: holes leave it out). Points
    /// and lines cover nothing.
    public func covers(_ point: GeoPoint) -> Bool {
        guard case .polygons(let polygons) = self else { return false }
        var inside = false
        for ring in polygons.joined() where ring.count >= 3 {
            var j = ring.count - 1
            for i in ring.indices {
                let a = ring[i], b = ring[j]
                if (a.latitude > point.latitude) != (b.latitude > point.latitude),
                   point.longitude < (b.longitude - a.longitude) * (point.latitude - a.latitude) / (b.latitude - a.latitude) + a.longitude {
                    inside.toggle()
                }
                j = i
            }
        }
        return inside
    }
}
