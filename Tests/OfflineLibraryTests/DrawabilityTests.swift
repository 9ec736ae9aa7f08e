import Foundation
import MapbookCore
import PortalFixtures
import SharedTestData
import SamplePortal
import Testing
import TileFormats
@testable import OfflineLibrary
import ArcGISModel
import LibraryModel

/// A package whose checksums pass may still be one no reader here can draw: the record says so, and
/// the area is never shown simply "Downloaded".
@Suite struct DrawabilityTests {
    private let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-drawable-\(UUID())")

    private func write(_ entries: [(String, Data)], as name: String) throws -> String {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let path = scratch.appendingPathComponent(name).path
        let writer = try ZipWriter(path: path)
        for (entry, data) in entries { try writer.add(entry, data) }
        try writer.finish()
        return path
    }

    @Test func aRealPackageCanBeDrawnAZipOfSomethingElseCannot() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let package = try #require(SampleFixture.content.packages[SampleFixture.portland.packageID])
        let real = scratch.appendingPathComponent("real.vtpk").path
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try package.data.write(to: URL(fileURLWithPath: real))
        #expect(try PackageVerifier.verify(path: real, name: "p", expectedSize: nil, fileName: "p.vtpk") == "zip CRC-32")
        let check = try #require(PackageVerifier.checkTiles(path: real, fileName: "real.vtpk"))
        #expect(check.drawProblem == nil && check.damaged == 0 && check.checked > 0)

        // Whole, with good checksums, and not a tile package at all.
        let other = try write([("readme.txt", Data("not tiles".utf8))], as: "other.vtpk")
        #expect(try PackageVerifier.verify(path: other, name: "p", expectedSize: nil, fileName: "p.vtpk") == "zip CRC-32")
        let problem = try #require(PackageVerifier.checkTiles(path: other, fileName: "other.vtpk")?.drawProblem)
        #expect(!problem.isEmpty)
        // Not a tile package kind: nothing to draw, nothing to say.
        #expect(PackageVerifier.checkTiles(path: other, fileName: "other.mmpk") == nil)
    }

    /// Esri's Usa.tpkx has two tiles damaged upstream (at levels 0 and 1): counted, not fatal, since
    /// the map draws from the levels around them.
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func damagedTilesAreCountedNotFatal() throws {
        let check = try #require(PackageVerifier.checkTiles(path: SharedData.url("raster/tpkx/Usa.tpkx").path, fileName: "Usa.tpkx"))
        #expect(check.drawProblem == nil)
        #expect(check.damageSummary == "2 of 144 tiles damaged (levels 0, 1)")
        // A sample of each level, as for a large package, finds the same levels damaged.
        let sampled = try TilePackage(path: SharedData.url("raster/tpkx/Usa.tpkx").path).verifyTiles(perLevel: 4)
        #expect(sampled.checked == 1 + 1 + 4 + 4 + 4 + 4 && Set(sampled.damaged.map(\.level)) == [0, 1])
    }

    @Test func theRecordSaysWhyTheAreaCannotBeDrawn() throws {
        var record = DownloadRecord(areaID: ItemID("a0000000000000000000000000000001")!, areaItem: .null, packageItems: [], packages: [
            .init(id: ItemID("b0000000000000000000000000000001")!, title: "t", type: "Vector Tile Package", fileName: "t.vtpk", size: 1,
                  modified: nil, verifiedBy: "zip CRC-32", drawProblem: "it is not a tile package")], downloadedAt: Date())
        #expect(record.drawProblem == "it is not a tile package")
        // Written and read back, the problem stays with the package.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let again = try JSONTreeDecoder.decode(DownloadRecord.self, from: try encoder.encode(record))
        #expect(again.packages[0].drawProblem == "it is not a tile package")
        // One drawable tile package is enough.
        record.packages.append(.init(id: ItemID("b0000000000000000000000000000002")!, title: "u", type: "Tile Package", fileName: "u.tpk",
                                     size: 1, modified: nil, verifiedBy: "zip CRC-32"))
        #expect(record.drawProblem == nil)
        // Damage found on arrival is kept with the package, and summed over the drawable ones.
        record.packages[1].damagedTiles = 2
        record.packages[1].damagedLevels = [0, 1]
        let kept = try JSONTreeDecoder.decode(DownloadRecord.self, from: try encoder.encode(record))
        #expect(kept.damagedTiles.count == 2 && kept.damagedTiles.levels == [0, 1])
    }
}
