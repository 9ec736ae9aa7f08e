import Foundation
import SharedTestData
import Testing
@testable import TileFormats

/// Damages `data` the way disks and links do: flipped bytes, a run of 0xFF (absurd sizes and
/// offsets), or a cut.
func mutate(_ data: Data, using rng: inout SplitMix64) -> Data {
    var bytes = [UInt8](data)
    guard !bytes.isEmpty else { return data }
    switch rng.next() % 4 {
    case 0:
        for _ in 0..<(1 + rng.next() % 8) { bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1) }
    case 1:
        let start = Int(rng.next() % UInt64(bytes.count))
        for i in start..<min(bytes.count, start + 8) { bytes[i] = 0xFF }
    case 2:
        bytes.removeLast(Int(rng.next() % UInt64(bytes.count)))
    default:
        let start = Int(rng.next() % UInt64(bytes.count))
        bytes.replaceSubrange(start..<min(bytes.count, start + 16), with: (0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    }
    return Data(bytes)
}

/// Bounded mutation runs over the readers: any outcome but a crash (or a hang) is acceptable — a
/// typed error, or data. Runs in CI; a few seconds in a debug build.
@Suite struct MutationTests {
    /// Opens a package and reads everything it claims to hold.
    static func readEverything(at path: String) -> Int {
        guard let package = try? TilePackage(path: path) else { return 0 }
        var tiles = 0
        for level in package.info.levels {
            guard let positions = try? package.tilePositions(level: level.level) else { continue }
            for p in positions.prefix(64) {
                if let data = try? package.tile(level: level.level, row: p.row, column: p.column) {
                    _ = TileContent.classify(data, vector: package.info.isVector)
                    tiles += 1
                }
            }
        }
        _ = try? package.style()
        return tiles
    }

    @Test func mutatedVectorTilePackagesNeverCrash() throws {
        let path = temporaryFile(".vtpk")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SampleFeatures.writer().write(tiles: VectorTiler().tiles(for: SampleFeatures.layers), to: path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(Self.readEverything(at: path) > 0)
        var rng = SplitMix64(state: 0x5EED)
        let mutant = temporaryFile(".vtpk")
        defer { try? FileManager.default.removeItem(atPath: mutant) }
        for _ in 0..<300 {
            try mutate(original, using: &rng).write(to: URL(fileURLWithPath: mutant))
            _ = Self.readEverything(at: mutant)
        }
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage),
          arguments: ["raster/tpk/states_filled.tpk", "raster/tpkx/Usa.tpkx"])
    func mutatedRealPackagesNeverCrash(_ name: String) throws {
        let original = try Data(contentsOf: SharedData.url(name))
        var rng = SplitMix64(state: 0xF00D)
        let mutant = temporaryFile("." + (name as NSString).pathExtension)
        defer { try? FileManager.default.removeItem(atPath: mutant) }
        for _ in 0..<60 {
            // Aim the damage at the metadata and indexes, where it matters, by mutating the first and last 200 KiB.
            var data = original
            let head = mutate(data.prefix(200_000), using: &rng)
            data = head + data.dropFirst(200_000)
            try data.write(to: URL(fileURLWithPath: mutant))
            _ = Self.readEverything(at: mutant)
        }
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func mutatedVectorTilesNeverCrash() throws {
        var rng = SplitMix64(state: 0xBEEF)
        let tiles = try RealWorldTileTests.norwayTiles.prefix(8).map { try Data(contentsOf: $0) }
            + MVTFixtureTests.fixtures.map { try $0.tile() }
        let gzipped = tiles.map { Deflate.deflate($0) }
        var decoded = 0
        for _ in 0..<2000 {
            let pick = Int(rng.next() % UInt64(tiles.count))
            if (try? MVTTile(decoding: mutate(tiles[pick], using: &rng))) != nil { decoded += 1 }
            _ = TileContent.classify(mutate(gzipped[pick], using: &rng), vector: true)
        }
        #expect(decoded > 0, "some mutants still decode: the test reaches past the first byte")
    }
}
