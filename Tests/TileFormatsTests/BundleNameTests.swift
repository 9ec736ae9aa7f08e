import Foundation
import Geometry
import MapbookCore
import Testing
@testable import TileFormats

/// Bundle names are `R{row hex}C{column hex}` with the hex in lower case: the column starts at the
/// upper-case `C`, whatever hex digits (a `c` among them) the row has.
@Suite struct BundleNameTests {
    @Test func everyHexDigitInEitherPlace() {
        for digit in "0123456789abcdef" {
            for (row, column) in [(Int("\(digit)380", radix: 16)! & ~127, 0x0100), (0x0080, Int("\(digit)a80", radix: 16)! & ~127),
                                  (Int("4\(digit)800", radix: 16)!, Int("41\(digit)00", radix: 16)! & ~127)] {
                let name = "L16/" + CompactCacheV2Bundle.fileName(row: row, column: column)
                let parsed = BundleName.parse(name)
                #expect(parsed?.key == BundleKey(level: 16, holdingRow: row, column: column) && parsed?.isIndex == false, "\(name)")
                // Written all in lower case (some tools do), the split that makes two bundle origins.
                #expect(BundleName.parse(name.lowercased())?.key == BundleKey(level: 16, holdingRow: row, column: column), "\(name.lowercased())")
            }
        }
        #expect(BundleName.parse("L19/Rc380Ca680.bundle")?.key == BundleKey(level: 19, holdingRow: 0xC380, column: 0xA680))
        #expect(BundleName.parse("L19/R4c800C41200.bundlx")?.key == BundleKey(level: 19, holdingRow: 0x4C800, column: 0x41200))
        #expect(BundleName.parse("L19/R4c800C41200.bundlx")?.isIndex == true)
    }

    @Test func namesThatNameNoBundleAreNotTaken() {
        for bad in ["L04/R.bundle", "L04/RC.bundle", "L04/R0080.bundle", "L04/C0080R0080.bundle", "L04/R0080C.bundle",
                    "L04/R" + String(repeating: "0", count: 30) + "C0080.bundle", "L04/R0080C0080C0080.bundle", "L04/Rxyz0C0080.bundle",
                    "L04/R0080C0100.tile", "04/R0080C0100.bundle", "L04/sub/R0080C0100.bundle", "Lx/R0080C0100.bundle"] {
            #expect(BundleName.parse(bad) == nil, "\(bad)")
        }
    }

    /// A vector tile package with tiles deep enough that bundle rows hold a `c`: every tile is
    /// listed and read (once, such rows were dropped or misplaced).
    @Test func aDeepPackageKeepsEveryBundle() throws {
        let tile = try #require(VectorTiler().tiles(for: SampleFeatures.layers)[TileKey(z: 0, x: 0, y: 0)])
        let keys = [TileKey(z: 17, x: 0xA680 + 5, y: 0xC380 + 7), TileKey(z: 17, x: 0x1C100, y: 0xC000), TileKey(z: 16, x: 0x0100, y: 0xCC80)]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("deep-\(UUID()).vtpk").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SampleFeatures.writer().write(tiles: Dictionary(uniqueKeysWithValues: keys.map { ($0, tile) }), to: path)
        let package = try TilePackage(path: path)
        for key in keys {
            #expect(try package.tile(z: key.z, x: key.x, y: key.y) != nil, "\(key)")
            #expect(try package.tilePositions(level: key.z).contains { $0.row == key.y && $0.column == key.x }, "\(key)")
        }
    }
}
