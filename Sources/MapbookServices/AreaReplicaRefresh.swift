import ArcGISModel
import ArcGISPortal
import Editing
import Foundation
import Geodatabase
import Geometry
import MapbookCore
import OfflineLibrary

/// The server's changes brought down into an area drawn from its own geodatabase replica (a
/// preplanned or on-demand area's): `synchronizeReplica` from the generation last brought down
/// (else the replica's own), its features kept in the journal with the generation reached, and
/// laid over the file — which stays as downloaded — under the user's edits. The synced edits the
/// server's changes now hold are folded out of the journal.
public enum AreaReplicaRefresh {
    /// The sentence for what came down, or why nothing did; nil when the area has no replica.
    public static func refresh(area id: ItemID, webMapLayers: [WebMapLayer], library: OfflineLibrary, client: PortalClient,
                               journal: EditJournal) async -> String? {
        let replicas = library.geodatabases(id).replicas
        guard !replicas.isEmpty else { return nil }
        var brought = 0, reached: Int64 = 0
        for replica in replicas {
            guard let replicaID = replica.id, let service = URL(string: replica.serviceURL) else {
                return "The area's replica names no replica id or service; download the area again for the server's changes."
            }
            let titles = Dictionary(replica.layers.map { layer in (layer.id, title(of: layer, in: replica, webMapLayers: webMapLayers)) },
                                    uniquingKeysWith: { first, _ in first })
            do {
                let from = try journal.serverGeneration(replicaID: replicaID) ?? replica.layers.compactMap(\.serverGeneration).min() ?? 0
                // Captured before asking: an edit synced later by another process is not in what comes down.
                let foldable = try journal.all().filter { $0.status == .synced && titles.values.contains($0.layer.title) }.map(\.sequence)
                let changes = try await client.synchronizeReplica(service: service, replicaID: replicaID, generation: from)
                var kept: [ServerChange] = []
                for (layerID, layer) in changes.layers {
                    guard let title = titles[layerID] else { continue }
                    for feature in layer.adds + layer.updates {
                        guard let attributes = feature["attributes"]?.object, let globalID = globalID(in: attributes) else { continue }
                        let shape = EsriFeatures.geometry(feature["geometry"])
                        kept.append(ServerChange(layerTitle: title, globalID: globalID, deleted: false, geometry: shape.map(GeoJSON.json), attributes: attributes))
                    }
                    kept += layer.deletedGlobalIDs.map { ServerChange(layerTitle: title, globalID: $0, deleted: true, geometry: nil, attributes: [:]) }
                }
                try journal.keep(kept, replicaID: replicaID, generation: changes.generation, folding: foldable)
                brought += kept.count
                reached = max(reached, changes.generation)
            } catch {
                return "The server's changes were not brought down: \(error.userSentence)"
            }
        }
        return "The server's changes came down: \(brought) feature\(brought == 1 ? "" : "s") (server generation \(reached))."
    }

    /// The title the area's map gives a replica's layer: its web map layer's (the one whose address
    /// is the layer's on the replica's service), else the replica's table name.
    static func title(of layer: GeodatabaseReplica.Layer, in replica: GeodatabaseReplica, webMapLayers: [WebMapLayer]) -> String {
        let service = replica.serviceURL.hasSuffix("/") ? String(replica.serviceURL.dropLast()) : replica.serviceURL
        let match = webMapLayers.first { webMapLayer in
            EditSync.target(of: EditLayer(title: "", serviceLayerURL: webMapLayer.url)) == EditSync.Target(serviceURL: service, layerID: layer.id)
        }
        return match.map { $0.title ?? $0.id ?? layer.table } ?? layer.table
    }

    /// A feature's GlobalID among its attributes, whatever the field's case.
    static func globalID(in attributes: [String: JSONValue]) -> String? {
        attributes.first { $0.key.caseInsensitiveCompare("GlobalID") == .orderedSame }?.value.string
    }
}
