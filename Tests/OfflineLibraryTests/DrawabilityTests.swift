import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
import TileFormats
@testable import OfflineLibrary
import ArcGISModel

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
        #expect(try PackageVerifier.verify(path: real, name: "p", expectedSize: nil, mustBeZip: true) == "zip CRC-32")
        #expect(PackageVerifier.drawProblem(path: real, fileName: "real.vtpk") == nil)

        // Whole, with good checksums, and not a tile package at all.
        let other = try write([("readme.txt", Data("not tiles".utf8))], as: "other.vtpk")
        #expect(try PackageVerifier.verify(path: other, name: "p", expectedSize: nil, mustBeZip: true) == "zip CRC-32")
        let problem = try #require(PackageVerifier.drawProblem(path: other, fileName: "other.vtpk"))
        #expect(!problem.isEmpty)
        // Not a tile package kind: nothing to draw, nothing to say.
        #expect(PackageVerifier.drawProblem(path: other, fileName: "other.mmpk") == nil)
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
    }
}
