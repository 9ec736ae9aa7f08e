import Foundation
import MapbookCore
import SharedTestData
import Testing
@testable import TileFormats

/// ArcMap writes `.tpk` files whose bundles are deflated inside the zip. Such a package, made here
/// from the stored `states_filled.tpk` by writing every entry again deflated, opens, reads every
/// tile byte for byte as the stored one (from bundles inflated once, piece by piece, into the cache
/// of inflated entries), and passes its checks; a damaged deflated bundle is refused, not trusted.
@Suite(.enabled(if: SharedData.available, SharedData.skipMessage))
struct DeflatedPackageTests {
    private let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-deflated-\(UUID())")

    /// `source` with every entry deflated; `damage` may change an entry's bytes after its CRC was taken.
    private func deflatedCopy(of source: String, damaging damaged: String? = nil) throws -> String {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let path = scratch.appendingPathComponent("deflated-\(UUID()).tpk").path
        let archive = try ZipArchive(source: try FileByteSource(path: source))
        let writer = try ZipWriter(path: path)
        for entry in archive.entries where !entry.isDirectory {
            try writer.add(entry.name, try archive.contents(of: entry, limit: 256 << 20), deflated: true)
        }
        try writer.finish()
        guard let damaged else { return path }
        // Flip a byte in the middle of that entry's deflated data: its CRC no longer matches.
        let copy = try ZipArchive(source: try FileByteSource(path: path))
        let entry = try #require(copy.entry(named: damaged))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let header = Int(entry.localHeaderOffset)
        let nameLength = Int(bytes[header + 26]) | Int(bytes[header + 27]) << 8
        bytes[header + 30 + nameLength + Int(entry.compressedSize) / 2] ^= 0x55
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func everyTileReadsAsFromTheStoredPackage() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let storedPath = SharedData.url("raster/tpk/states_filled.tpk").path
        let deflatedPath = try deflatedCopy(of: storedPath)
        let archive = try ZipArchive(source: try FileByteSource(path: deflatedPath))
        #expect(archive.entries.contains { $0.name.hasSuffix(".bundle") && $0.method == .deflated })
        let stored = try TilePackage(path: storedPath), deflated = try TilePackage(path: deflatedPath)
        #expect(deflated.info.levels.map(\.zoom) == stored.info.levels.map(\.zoom))
        var compared = 0
        for level in stored.info.levels {
            for position in try stored.tilePositions(level: level.level) {
                let expected = try stored.tile(level: level.level, row: position.row, column: position.column)
                #expect(try deflated.tile(level: level.level, row: position.row, column: position.column) == expected)
                compared += 1
            }
        }
        #expect(compared == 24)
        let (checked, damaged) = try deflated.verifyTiles()
        #expect(checked == 24 && damaged.isEmpty)
        try archive.verifyChecksums()
        // Opened again, the inflated copies are read from the cache.
        #expect(try TilePackage(path: deflatedPath).tile(z: 4, x: 4, y: 5) == (try stored.tile(z: 4, x: 4, y: 5)))
    }

    @Test func aDamagedDeflatedBundleIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let storedPath = SharedData.url("raster/tpk/states_filled.tpk").path
        let stored = try ZipArchive(source: try FileByteSource(path: storedPath))
        let bundle = try #require(stored.entries.map(\.name).filter { $0.hasSuffix(".bundle") }.max { a, b in
            (stored.entry(named: a)?.size ?? 0) < (stored.entry(named: b)?.size ?? 0)
        })
        let path = try deflatedCopy(of: storedPath, damaging: bundle)
        let archive = try ZipArchive(source: try FileByteSource(path: path))
        #expect(throws: TileFormatError.self) { try archive.verifyChecksums() }
        let entry = try #require(archive.entry(named: bundle))
        // Not from a copy another test inflated from the undamaged package: from these bytes.
        ZipArchive.inflated.remove(ZipArchive.inflatedName(of: entry))
        #expect(throws: TileFormatError.self) { try archive.source(of: entry) }
        #expect(ZipArchive.inflated.existingPath(ZipArchive.inflatedName(of: entry)) == nil, "nothing damaged is kept")
    }
}
