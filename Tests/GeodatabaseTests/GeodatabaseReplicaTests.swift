import ArcGISModel
import Foundation
@testable import Geodatabase
import MapbookCore
import SharedTestData
import Testing

/// A replica's record (`GDB_Items` of type "Sync Replica") tells which feature service a file's
/// layers were taken from, so a preplanned area's geodatabase stands in for the web map's layers.
struct GeodatabaseReplicaTests {
    static let service = "https://services.arcgis.com/abc/arcgis/rest/services/Trails/FeatureServer"

    static func written(replica: GeodatabaseReplica?) throws -> (Geodatabase, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replica-\(UUID().uuidString).geodatabase").path
        let writer = try GeodatabaseWriter(path: path)
        let info = #"{"name": "Trailheads", "geometryType": "esriGeometryPoint", "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}]}"#
        try writer.addLayer(id: 3, table: "Trailheads", info: try JSONValue(parsing: Data(info.utf8)))
        let lines = #"{"name": "Trails", "geometryType": "esriGeometryPolyline", "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}]}"#
        try writer.addLayer(id: 7, table: "Trails", info: try JSONValue(parsing: Data(lines.utf8)))
        if let replica { try writer.addReplica(replica) }
        try writer.finish()
        return (try Geodatabase(path: path), path)
    }

    @Test func theReplicaRecordNamesItsServiceAndLayers() throws {
        let replica = GeodatabaseReplica(id: "{7B6EB064-7BF6-42C8-A116-2E89CD24A000}", name: "Trails & more", serviceURL: Self.service + "?a=1&b=2",
                                         layers: [.init(id: 3, table: "Trailheads", serverGeneration: 2590), .init(id: 7, table: "Trails", serverGeneration: nil)])
        let (gdb, path) = try Self.written(replica: replica)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(gdb.replica == replica, "entities decoded, each dataset's layer id, table and generation read")
        #expect(gdb.layer(standingFor: "https://services.arcgis.com/abc/arcgis/rest/services/Trails/FeatureServer/3")?.table == "Trailheads")
        #expect(gdb.layer(standingFor: "HTTP://Services.ArcGIS.com/abc/arcgis/rest/services/Trails/FeatureServer/7/")?.table == "Trails",
                "scheme, case and a trailing slash do not count")
        #expect(gdb.layer(standingFor: Self.service + "/5") == nil, "a layer the file does not hold")
        #expect(gdb.layer(standingFor: "https://services.arcgis.com/abc/arcgis/rest/services/Roads/FeatureServer/3") == nil, "another service")
        #expect(gdb.layer(standingFor: "https://elsewhere.example/abc/arcgis/rest/services/Trails/FeatureServer/3") == nil, "another host")
        #expect(gdb.layer(standingFor: Self.service) == nil, "a service, not a layer")
        #expect(gdb.layer(standingFor: "https://services.arcgis.com/abc/arcgis/rest/services/Roads/FeatureServer/3", reference: Self.service) == nil,
                "the replica's service wins over the package item's keyword")
    }

    @Test func withoutARecordThePackageItemsKeywordNamesTheService() throws {
        let (gdb, path) = try Self.written(replica: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(gdb.replica == nil)
        #expect(gdb.layer(standingFor: Self.service + "/3") == nil, "nothing to match by")
        let keyword = FeatureServiceURL.reference(inKeywords: ["Data", "Replica", "Syncable", "MapAreaPackage", "ReferenceURL#" + Self.service])
        #expect(keyword == Self.service)
        #expect(gdb.layer(standingFor: Self.service + "/3", reference: keyword)?.table == "Trailheads")
    }

    @Test func attachmentTablesAndOddElementsAreNotLayers() {
        let xml = """
            <GPSyncReplica><ReplicaName>R</ReplicaName><ServiceName>https://h/x/FeatureServer</ServiceName>
            <GPSyncDatasets><GPSyncDataset><DatasetName>A</DatasetName><DatasetType>esriDTFeatureClass</DatasetType><LayerID>0</LayerID>
            <ReplicaServerGen xsi:type='xs:long'>12</ReplicaServerGen></GPSyncDataset>
            <GPSyncDataset><DatasetName>A__ATTACH</DatasetName><DatasetType>esriDTTable</DatasetType><LayerID>0</LayerID><IsAttachment>true</IsAttachment></GPSyncDataset>
            <GPSyncDataset/><GPSyncDataset><DatasetName>B</DatasetName><LayerID>x</LayerID></GPSyncDataset>
            </GPSyncDatasets></GPSyncReplica>
            """
        let replica = GeodatabaseReplica(xml: xml)
        #expect(replica?.layers == [.init(id: 0, table: "A", serverGeneration: 12)])
        #expect(GeodatabaseReplica(xml: "<GPSyncReplica><ReplicaName>R</ReplicaName></GPSyncReplica>") == nil, "no service, no replica")
        #expect(GeodatabaseReplica(xml: "<ServiceName>https://h/x/FeatureServer") == nil, "an element never closed")
        // Every cut of a record (a hostile file's) reads as something or nothing, never a crash.
        var read = 0
        for end in xml.indices { if GeodatabaseReplica(xml: String(xml[..<end])) != nil { read += 1 } }
        #expect(read > 0 && read < xml.count)
        #expect(GeodatabaseReplica(xml: "<ServiceName/><ServiceName>") == nil)
    }

    /// What stands in for a checksum: SQLite's page check finds a page whose header is broken.
    @Test func sqlitesOwnCheckFindsABrokenPage() throws {
        let (gdb, path) = try Self.written(replica: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try gdb.damage() == nil)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        // Every page after the schema's gets an impossible b-tree page type.
        for page in stride(from: pageSize, to: bytes.count, by: pageSize) { bytes[page] = 0xFF }
        try bytes.write(to: URL(fileURLWithPath: path))
        let found: String? = try { () throws -> String? in
            do { return try Geodatabase(path: path).damage() } catch { return "\(error)" }
        }()
        #expect(found != nil)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: usaGeodatabase), "needs ../shared/data/features/usa.geodatabase"))
    func esrisSampleHasNoReplicaRecord() throws {
        let gdb = try Geodatabase(path: usaGeodatabase)
        #expect(gdb.replica == nil)
    }
}
