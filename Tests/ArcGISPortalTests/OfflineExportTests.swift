import Foundation
import Geometry
import MapbookCore
import Testing
@testable import ArcGISPortal

/// Where an export's package is, in each shape a server answers `out_service_url` with.
@Suite struct OfflineExportAnswerTests {
    @Test func thePackageAddressIsReadFromEachShape() throws {
        let files: JSONValue = .object(["url": .string("https://h/out/j1"), "files": .array([
            .object(["name": .string("readme.txt"), "url": .string("https://h/out/j1/readme.txt")]),
            .object(["name": .string("L.vtpk"), "url": .string("https://h/out/j1/L.vtpk"), "size": .number(1234)]),
        ])])
        #expect(PortalClient.packageAddress(files).map { "\($0.0) \($0.1 ?? -1)" } == "https://h/out/j1/L.vtpk 1234")
        #expect(PortalClient.packageAddress(.string("https://h/out/j2/Layers.tpk"))?.0.absoluteString == "https://h/out/j2/Layers.tpk")
        #expect(PortalClient.packageAddress(.string("https://h/arcgisoutput/_ags"))?.0.absoluteString == "https://h/arcgisoutput/_ags/Layers.tpkx")
        #expect(PortalClient.packageAddress(.string("file:///etc/passwd")) == nil)
        #expect(PortalClient.packageAddress(.object(["files": .array([.object(["url": .string("ftp://h/x.vtpk")])])])) == nil)
        #expect(PortalClient.packageAddress(nil) == nil)
    }

    @Test func tileExportsSendTheExtentWithItsReferenceAndTheLevels() {
        let extent = GeoExtent(xmin: -69.075, ymin: 44.195, xmax: -69.035, ymax: 44.225)
        let vector = Dictionary(uniqueKeysWithValues: PortalClient.tileExportQuery(kind: .vectorTiles, extent: extent, levels: 0...16))
        #expect(vector["levels"] == "0-16" && vector["exportBy"] == "LevelID" && vector["tilePackage"] == nil)
        #expect(vector["exportExtent"] == #"{"xmin":-69.075,"ymin":44.195,"xmax":-69.035,"ymax":44.225,"spatialReference":{"wkid":4326}}"#)
        let raster = Dictionary(uniqueKeysWithValues: PortalClient.tileExportQuery(kind: .rasterTiles, extent: extent, levels: 0...12))
        #expect(raster["tilePackage"] == "true" && raster["storageFormatType"] == "esriMapCacheStorageModeCompactV2")
    }
}

