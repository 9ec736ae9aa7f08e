import ArcGISModel
import CSQLite
import Foundation
import Geometry
import MapbookCore

/// A feature as the server holds it now, brought down by a replica's sync (`synchronizeReplica`):
/// laid over the area's own file, under the user's edits, since the file stays as downloaded.
public struct ServerChange: Equatable, Sendable {
    public var layerTitle: String
    public var globalID: String
    /// Deleted on the server.
    public var deleted: Bool
    /// GeoJSON in WGS 84; nil for a deletion.
    public var geometry: JSONValue?
    public var attributes: [String: JSONValue]

    public init(layerTitle: String, globalID: String, deleted: Bool, geometry: JSONValue?, attributes: [String: JSONValue]) {
        self.layerTitle = layerTitle; self.globalID = globalID.uppercased(); self.deleted = deleted; self.geometry = geometry; self.attributes = attributes
    }
}

extension EditJournal {
    static let serverChangesTable = """
        CREATE TABLE IF NOT EXISTS server_changes (
          layer_title TEXT NOT NULL, global_id TEXT NOT NULL, deleted INTEGER NOT NULL, geometry TEXT, attributes TEXT NOT NULL,
          PRIMARY KEY (layer_title, global_id))
        """
    static let replicasTable = "CREATE TABLE IF NOT EXISTS replicas (replica_id TEXT PRIMARY KEY, generation INTEGER NOT NULL)"

    /// The server generation the area's replica has brought down to, when it has synced here.
    public func serverGeneration(replicaID: String) throws -> Int64? {
        let statement = try prepare("SELECT generation FROM replicas WHERE replica_id = ?")
        defer { sqlite3_finalize(statement) }
        bind([.text(replicaID.uppercased())], to: statement)
        return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : nil
    }

    /// Keeps what a replica's sync brought down and the generation it reaches, and folds the synced
    /// edits it now holds (`fold`), in one transaction: a feature's latest state replaces the one
    /// kept before.
    public func keep(_ changes: [ServerChange], replicaID: String, generation: Int64, folding synced: [Int64] = []) throws {
        try transaction {
            try removeSynced(synced)
            for change in changes {
                try run("""
                    INSERT OR REPLACE INTO server_changes (layer_title, global_id, deleted, geometry, attributes) VALUES (?, ?, ?, ?, ?)
                    """, [.text(change.layerTitle), .text(change.globalID), .integer(change.deleted ? 1 : 0),
                          change.geometry.map { .text($0.compactText) } ?? .null, .text(JSONValue.object(change.attributes).compactText)])
            }
            try run("INSERT OR REPLACE INTO replicas (replica_id, generation) VALUES (?, ?)", [.text(replicaID.uppercased()), .integer(generation)])
        }
    }

    /// Every server change kept, by layer title.
    public func serverChanges() throws -> [ServerChange] {
        let statement = try prepare("SELECT layer_title, global_id, deleted, geometry, attributes FROM server_changes ORDER BY rowid")
        defer { sqlite3_finalize(statement) }
        var found: [ServerChange] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            func text(_ column: Int32) -> String? { sqlite3_column_text(statement, column).map { String(cString: $0) } }
            func json(_ column: Int32) -> JSONValue? { text(column).flatMap { try? JSONValue(parsing: Data($0.utf8)) } }
            found.append(ServerChange(layerTitle: text(0) ?? "", globalID: text(1) ?? "", deleted: sqlite3_column_int64(statement, 2) != 0,
                                      geometry: json(3), attributes: json(4)?.object ?? [:]))
        }
        return found
    }
}

extension EditOverlay {
    /// The server's changes laid over a layer's stored features, by GlobalID: a feature changed
    /// takes the server's values and shape, one added appears, one deleted goes.
    public static func apply(server changes: [ServerChange], to stored: [LayerFeature], info: FeatureLayerInfo) -> [LayerFeature] {
        guard !changes.isEmpty, let field = info.fields.first(where: { $0.type == "esriFieldTypeGlobalID" })?.name else { return stored }
        var features = stored
        var index: [String: Int] = [:]
        for (at, feature) in features.enumerated() {
            if let id = feature.attributes[field]?.string?.uppercased(), index[id] == nil { index[id] = at }
        }
        var removed = Set<Int>()
        for change in changes {
            let shape = change.geometry.flatMap(GeoJSON.geometry)
            if let at = index[change.globalID] {
                if change.deleted { removed.insert(at); continue }
                features[at].attributes.merge(change.attributes) { _, server in server }
                if let shape { features[at].geometry = shape; features[at].z = nil; features[at].m = nil }
            } else if !change.deleted {
                features.append(LayerFeature(geometry: shape, attributes: change.attributes))
                index[change.globalID] = features.count - 1
            }
        }
        return removed.isEmpty ? features : features.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }
}
