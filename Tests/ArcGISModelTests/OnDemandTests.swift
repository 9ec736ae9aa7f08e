import Foundation
import Geometry
import MapbookCore
import Testing
@testable import ArcGISModel

/// The values behind areas of the user's own: named scales, the tile grid, jobs' states as servers
/// write them, estimates, and the spec kept in the area's item.
@Suite struct OnDemandTests {
    @Test func namedScalesAreWebMercatorLevelsAndReadAnyCase() {
        #expect(DetailLevel(name: " Street") == .street && DetailLevel(name: "STREETS") == .streets && DetailLevel(name: "block") == nil)
        #expect(DetailLevel.street.level == 16 && DetailLevel.neighborhood.level == 14 && DetailLevel.room.level == 23)
        #expect(abs(DetailLevel.street.scale - 9027.977) < 0.01)
        #expect(DetailLevel.allCases.map(\.level) == DetailLevel.allCases.map(\.level).sorted(by: >), "finest first")
        #expect(DetailLevel.nearest(zoom: 15.7) == .street && DetailLevel.nearest(zoom: 18.2) == .building)
        #expect(DetailLevel.street.title == "Street")
    }

    @Test func theTileGridCountsEachLevelsTiles() {
        let world = GeoExtent(xmin: -180, ymin: -85, xmax: 180, ymax: 85)
        #expect(TileGrid.tileCount(world, level: 0) == 1 && TileGrid.tileCount(world, level: 2) == 16)
        #expect(TileGrid.tileCount(world, levels: 0...2) == 21)
        let point = GeoExtent(xmin: -69.05, ymin: 44.21, xmax: -69.05, ymax: 44.21)
        #expect(TileGrid.tileCount(point, levels: 0...16) == 17)
    }

    @Test func jobStatesReadAsServersWriteThem() {
        func job(_ status: String, _ extra: [String: JSONValue] = [:]) -> ServiceJobStatus {
            ServiceJobStatus(job: .object(extra.merging(["jobStatus": .string(status)]) { a, _ in a }))
        }
        #expect(job("esriJobSubmitted") == .waiting)
        #expect(job("esriJobExecuting", ["progress": .object(["percent": .number(39.6)])]) == .running(percent: 40))
        #expect(job("esriJobSucceeded") == .succeeded && job("esriJobCancelled") == .cancelled)
        let failed = job("esriJobFailed", ["messages": .array([.object(["description": .string("Out of disk.\u{1b}[2J")])])])
        #expect(failed == .failed("Out of disk.[2J") || failed == .failed("Out of disk"), "sanitized: \(failed)")
        #expect(job("esriJobTimedOut") == .failed("the server gave no reason"))
        #expect(job("") == .failed("the server said “nothing” of the job"))
        #expect(ServiceJobStatus(replica: .object(["status": .string("ExportingData")])) == .running(percent: nil))
        #expect(ServiceJobStatus(replica: .object(["status": .string("Completed")])) == .succeeded)
        #expect(ServiceJobStatus(replica: .object(["status": .string("Failed"), "message": .string("No space.")])) == .failed("No space"))
        #expect(ServiceJobStatus.running(percent: 40).label == "Preparing on the server 40 %")
        // A percentage no job can reach is not shown (once, it stopped every browser start).
        for hostile in [1e30, -1e30, 101, -1] {
            #expect(job("esriJobExecuting", ["progress": .object(["percent": .number(hostile)])]) == .running(percent: nil), "\(hostile)")
        }
    }

    @Test func estimatesAndSpecsReadBackAndRefuseNonsense() throws {
        #expect(TileExportEstimate(json: .object(["value": .object(["totalSize": .number(6972190), "totalTilesToExport": .number(1234)])]))
                == TileExportEstimate(tiles: 1234, bytes: 6_972_190))
        #expect(TileExportEstimate(json: .object(["totalSize": .number(-1), "totalTilesToExport": .number(3)])) == nil)
        #expect(TileExportEstimate(json: .object(["totalSize": .number(10), "totalTilesToExport": .number(1e30)])) == nil)
        #expect(TileExportEstimate(json: .object(["totalSize": .number(1e300), "totalTilesToExport": .number(3)])) == nil)
        let spec = OnDemandSpec(name: "Camden", extent: GeoExtent(xmin: -69.1, ymin: 44.2, xmax: -69.0, ymax: 44.3), maxLevel: 16,
                                detail: .street, createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(OnDemandSpec(json: spec.json) == spec && spec.detailLabel == "Street (level 16)")
        #expect(OnDemandSpec(json: .object(["name": .string("x"), "maxLevel": .number(99), "extent": .array([])])) == nil)
        let layer = OnDemandLayer(title: "Basemap", kind: .vectorTiles, serviceURL: "https://h/VectorTileServer")
        let area = MapArea.onDemand(id: ItemID("0123456789abcdef0123456789abcdef")!, spec: spec,
                                    packages: [(ItemID("fedcba9876543210fedcba9876543210")!, layer, URL(string: "https://h/out/x.vtpk")!, 99)],
                                    exported: Date(timeIntervalSince1970: 1_800_000_100))
        #expect(area.onDemand == spec && area.isDownloadable && area.item.title == "Camden")
        #expect(area.packages[0].resultURL == URL(string: "https://h/out/x.vtpk") && area.packages[0].kind == .vectorTilePackage)
        // Read back from what the library keeps, it is the same area.
        let kept = MapArea(areaItem: PortalItem(arcGISJSON: area.item.arcGISJSON)!,
                           packageItems: area.packages.compactMap { PortalItem(arcGISJSON: $0.item.arcGISJSON) })
        #expect(kept.onDemand == spec && kept.packages[0].resultURL == area.packages[0].resultURL)
        // A portal's own package item with a url is not fetched from it.
        let portalPackage = AreaPackage(item: PortalItem(id: ItemID("fedcba9876543210fedcba9876543210")!, title: "p", type: "Vector Tile Package",
                                                         url: "https://elsewhere/x.vtpk"))
        #expect(portalPackage.resultURL == nil)
    }
}
