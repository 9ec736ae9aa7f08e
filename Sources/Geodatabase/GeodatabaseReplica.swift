import Foundation
import MapbookCore

/// A replica's record in a geodatabase (`GDB_Items`, type "Sync Replica"): the feature service it
/// was taken from and the generation of each layer, from its `<GPSyncReplica>` XML. Preplanned
/// areas' and `createReplica` files have one; Esri's samples and Pro-made files do not.
public struct GeodatabaseReplica: Sendable, Equatable {
    public struct Layer: Sendable, Equatable {
        /// The feature service's layer id.
        public var id: Int
        public var table: String
        /// The server generation the layer was taken at (`ReplicaServerGen`).
        public var serverGeneration: Int64?

        public init(id: Int, table: String, serverGeneration: Int64?) { self.id = id; self.table = table; self.serverGeneration = serverGeneration }
    }

    public var id: String?
    public var name: String?
    /// The FeatureServer URL (`ServiceName`).
    public var serviceURL: String
    /// The feature classes (attachment tables left out).
    public var layers: [Layer]

    /// The `GDB_ItemTypes` UUID of a sync replica.
    static let itemType = "{5B966567-FB87-4DDE-938B-B4B37423539D}"

    public init(id: String?, name: String?, serviceURL: String, layers: [Layer]) {
        self.id = id; self.name = name; self.serviceURL = serviceURL; self.layers = layers
    }

    /// Reads the XML ArcGIS writes; nil when it names no service.
    public init?(xml: String) {
        guard let service = XMLText.elements("ServiceName", in: xml).first, !service.isEmpty else { return nil }
        serviceURL = service
        id = XMLText.elements("ReplicaID", in: xml).first
        name = XMLText.elements("ReplicaName", in: xml).first
        layers = XMLText.bodies("GPSyncDataset", in: xml).map(String.init).compactMap { dataset in
            guard XMLText.elements("IsAttachment", in: dataset).first != "true",
                  XMLText.elements("DatasetType", in: dataset).first.map({ $0 == "esriDTFeatureClass" }) ?? true,
                  let id = XMLText.elements("LayerID", in: dataset).first.flatMap({ Int($0) }) else { return nil }
            return Layer(id: id, table: XMLText.elements("DatasetName", in: dataset).first ?? "",
                         serverGeneration: XMLText.elements("ReplicaServerGen", in: dataset).first.flatMap { Int64($0) })
        }
    }

    /// The XML as ArcGIS writes it (for the sample portal's areas).
    public var xml: String {
        func element(_ name: String, _ value: String?) -> String { value.map { "<\(name)>\(XMLText.escaped($0))</\(name)>" } ?? "" }
        let datasets = layers.enumerated().map { index, layer in
            "<GPSyncDataset xsi:type='typens:GPSyncDataset'>" + element("DatasetID", String(index + 1)) + element("DatasetName", layer.table)
                + "<DatasetType>esriDTFeatureClass</DatasetType>" + element("LayerID", String(layer.id)) + element("LayerName", layer.table)
                + "<Direction>esriSyncDirectionDownload</Direction>"
                + (layer.serverGeneration.map { "<ReplicaServerGen xsi:type='xs:long'>\($0)</ReplicaServerGen>" } ?? "")
                + "<UseGeometry>true</UseGeometry><IncludeRelated>false</IncludeRelated><QueryOption>esriRowsTypeFilter</QueryOption></GPSyncDataset>"
        }
        return "<GPSyncReplica xsi:type='typens:GPSyncReplica' xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' "
            + "xmlns:xs='http://www.w3.org/2001/XMLSchema' xmlns:typens='http://www.esri.com/schemas/ArcGIS/10.8'>"
            + element("ReplicaName", name) + element("ReplicaID", id) + element("ServiceName", serviceURL)
            + "<Role>esriReplicaRoleChild</Role><SyncModel>esriSyncModelPerLayer</SyncModel>"
            + "<GPSyncDatasets xsi:type='typens:ArrayOfGPSyncDataset'>" + datasets.joined() + "</GPSyncDatasets></GPSyncReplica>"
    }
}

/// The web map layers a geodatabase stands for: a layer URL `…/FeatureServer/N` is the file's
/// layer N when the file was taken from that service — by its replica's `ServiceName`, else by the
/// package item's `ReferenceURL#…` keyword. Scheme, letter case, a trailing slash and a query do
/// not count; a different service or path does.
public enum FeatureServiceURL {
    /// The service and the layer id of a layer URL; nil when it does not end in a layer id.
    public static func split(_ layerURL: String) -> (service: String, layer: Int)? {
        let trimmed = normalized(layerURL)
        guard let slash = trimmed.lastIndex(of: "/"), let id = Int(trimmed[trimmed.index(after: slash)...]), id >= 0 else { return nil }
        return (String(trimmed[..<slash]), id)
    }

    /// The URL without scheme, query or trailing slashes, in lower case.
    public static func normalized(_ url: String) -> String {
        var text = url.trimmingCharacters(in: .whitespaces)
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<query]) }
        if let scheme = text.range(of: "://") { text = String(text[scheme.upperBound...]) }
        while text.hasSuffix("/") { text.removeLast() }
        return text.lowercased()
    }

    /// The service a package item names in its keywords (`ReferenceURL#https://…/FeatureServer`).
    public static func reference(inKeywords keywords: [String]) -> String? {
        keywords.first { $0.hasPrefix("ReferenceURL#") }.map { String($0.dropFirst("ReferenceURL#".count)) }
    }
}

extension Geodatabase {
    /// The service its features were taken from: the replica's, else `reference` (a package item's keyword).
    public func serviceURL(reference: String? = nil) -> String? { replica?.serviceURL ?? reference }

    /// The layer standing for a feature service layer URL, per `FeatureServiceURL`'s rule.
    public func layer(standingFor layerURL: String, reference: String? = nil) -> GeodatabaseLayer? {
        guard let service = serviceURL(reference: reference), let (layerService, id) = FeatureServiceURL.split(layerURL),
              layerService == FeatureServiceURL.normalized(service) else { return nil }
        return layers.first { $0.serviceLayerID == id }
    }

    /// The replica record, when the file has one (`GDB_Items` of type "Sync Replica").
    static func readReplica(_ file: SQLiteFile) throws -> GeodatabaseReplica? {
        guard try file.has("GDB_Items", type: "table") else { return nil }
        var replica: GeodatabaseReplica?
        try file.rows("SELECT Definition FROM GDB_Items WHERE upper(Type) = '\(GeodatabaseReplica.itemType)'") { row in
            replica = row.text(0).flatMap(GeodatabaseReplica.init(xml:))
            return replica == nil
        }
        return replica
    }
}
