import Foundation
import Geodatabase
import Geometry
import MapbookCore

/// A map area's SQLite Geodatabase package, as ArcGIS prepares one for a web map's feature layers:
/// the FeatureServer's Places and Counties that meet the area, each under its service layer id,
/// in a replica whose record names the service — so the area's map draws them from the file with
/// no network, and a download copies nothing of them. Its bytes name the server's own address,
/// so they are made for each (and kept).
enum SampleAreaGeodatabase {
    /// The replica's id, fixed so the bytes are the same on every start.
    static let replicaID = "{3F1C2B7A-9D4E-4C1B-8E2F-6A5B4C3D2E10}"

    /// The file for `area`, served from `baseURL`; `generation` grows with each update of the area.
    static func bytes(for area: SampleArea, features: SampleFeatureServer, baseURL: String, generation: Int64) throws -> Data {
        try bytes(within: area.extent, features: features, replica: GeodatabaseReplica(
            id: replicaID, name: "\(area.title.replacingOccurrences(of: " ", with: "_"))_replica", serviceURL: baseURL + SampleFeatureServer.path,
            layers: tables.enumerated().map { .init(id: $0.offset, table: $0.element, serverGeneration: generation) }))
    }

    /// The service's tables, by layer id.
    static let tables = ["Places", "Counties"]

    /// A geodatabase of the FeatureServer's features that meet `extent`, each layer (of `layers`,
    /// else all) under its service layer id; with a replica record, or without one as ArcGIS Pro
    /// writes a package's.
    static func bytes(within extent: GeoExtent, features: SampleFeatureServer, replica: GeodatabaseReplica?,
                      layers: [Int]? = nil) throws -> Data {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-sample-\(UUID().uuidString).geodatabase").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try GeodatabaseWriter(path: path)
        for (id, layer) in features.layers.enumerated() where layers?.contains(id) ?? true {
            try writer.addLayer(id: id, table: tables[id], info: layer.json)
            for feature in layer.features where feature.extent.intersects(extent) {
                guard let shape = shape(feature.geometry) else { continue }
                try writer.insert(into: tables[id], attributes: feature.attributes, shape: shape)
            }
        }
        if let replica { try writer.addReplica(replica) }
        try writer.finish()
        guard let data = FileManager.default.contents(atPath: path) else { throw GeodatabaseError("The sample geodatabase vanished after writing.") }
        return data
    }

    /// A feature's ArcGIS JSON geometry in degrees (a point's x/y, a polygon's rings) as Web Mercator.
    private static func shape(_ geometry: JSONValue) -> StoredShape? {
        func mercator(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
            let m = WebMercator.projected(longitude: lon, latitude: lat)
            return (m.x, m.y)
        }
        if let x = geometry["x"]?.double, let y = geometry["y"]?.double { return .point(x: mercator(x, y).x, y: mercator(x, y).y) }
        guard let rings = geometry["rings"]?.array else { return nil }
        return .polygon(rings.map { ring in ring.array.compactMap { pair in
            let xy = pair.array
            guard xy.count >= 2, let x = xy[0].double, let y = xy[1].double else { return nil }
            return mercator(x, y)
        } })
    }
}
