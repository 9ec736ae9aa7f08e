import Foundation
import Testing
import ArcGISModel
import Geometry
import MapbookCore

@Suite struct GeometryTests {
    @Test func webMercatorRoundTrips() {
        let p = WebMercator.projected(longitude: -68.77, latitude: 44.80)
        let back = WebMercator.geographic(x: p.x, y: p.y)
        #expect(abs(back.longitude - -68.77) < 1e-9)
        #expect(abs(back.latitude - 44.80) < 1e-9)
        #expect(abs(WebMercator.projected(longitude: 180, latitude: 0).x - WebMercator.originShift) < 1e-6)
    }

    @Test func resolutionsMatchTheArcGISTilingScheme() {
        #expect(abs(WebMercator.resolution(zoom: 0) - 156_543.033928) < 1e-5)
        #expect(abs(WebMercator.resolution(zoom: 0, tileSize: 512) - 78_271.516964) < 1e-5)
    }

    @Test func tileContainingAPoint() {
        let p = WebMercator.projected(longitude: -69.0, latitude: 45.2)  // central Maine
        let tile = WebMercator.tile(containingX: p.x, y: p.y, zoom: 4)
        #expect(tile.column == 4 && tile.row == 5)
        let far = WebMercator.tile(containingX: 1e12, y: -1e12, zoom: 2)
        #expect(far.column == 3 && far.row == 3, "clamped to the grid")
    }

    @Test func envelopeToGeographic() throws {
        let env = Envelope(xmin: -7913000, ymin: 5300000, xmax: -7452000, ymax: 6015000, spatialReference: .webMercator)
        let geo = try #require(env.geographic)
        #expect(geo.xmin < -71 && geo.xmax > -67)
        #expect(Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1, spatialReference: SpatialReference(wkid: 99999)).geographic == nil)
    }
}

@Suite struct ValueTypeTests {
    @Test func itemIDs() {
        #expect(ItemID("3BC3179F17DA44A0AC0BFDAC4AD15664") == .exploreMaine)
        for bad in ["", "3bc3179f17da44a0ac0bfdac4ad1566", "3bc3179f17da44a0ac0bfdac4ad15664a", "../../../../../../../../../../etc",
                    "3bc3179f17da44a0ac0bfdac4ad1566g"] {
            #expect(ItemID(bad) == nil, "\(bad)")
        }
    }

    @Test func jsonAccessorsForgiveTypeVariation() throws {
        let json = try JSONValue(parsing: Data(#"{"n":"42","s":7,"b":"true","z":null,"a":[1,"x"],"big":1e300}"#.utf8))
        #expect(json["n"]?.int64 == 42)
        #expect(json["s"]?.string == "7")
        #expect(json["b"]?.bool == true)
        #expect(json["z"]?.string == nil)
        #expect(json["a"]?.stringArray == ["1", "x"])
        #expect(json["big"]?.int64 == nil)
        #expect(json["missing"] == nil)
        #expect(json["a"]?[5] == nil)
        #expect(throws: (any Error).self) { try JSONValue(parsing: Data("{".utf8)) }
    }

    @Test func packagingStatus() {
        #expect(PackagingStatus(portalValue: "COMPLETE") == .complete)
        #expect(PackagingStatus(portalValue: nil) == .unknown)
        #expect(PackagingStatus(portalValue: "queued") == .other("queued"))
        #expect(!PackagingStatus(portalValue: "queued").isDownloadable)
    }
}
