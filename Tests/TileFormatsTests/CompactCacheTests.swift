import Foundation
import SharedTestData
import Testing
@testable import TileFormats

@Suite struct CompactCacheV2Tests {
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func esriSampleTilesMatchTheLooseJPEGs() throws {
        var compared = 0
        for level in 0...2 {
            let bundlePath = SharedData.url("raster/compactcache-v2-esri-sample/_alllayers/L0\(level)/R0000C0000.bundle").path
            let bundle = try CompactCacheV2Bundle(source: FileByteSource(path: bundlePath))
            let side = 1 << level
            #expect(bundle.presentTiles().count == side * side)
            for row in 0..<side {
                for column in 0..<side {
                    let loose = try Data(contentsOf: SharedData.url("raster/jpeg-tiles-esri-sample/L0\(level)/\(row)/\(column).jpg"))
                    #expect(try bundle.tile(row: row, column: column) == loose, "L\(level) \(row)/\(column)")
                    compared += 1
                }
            }
            #expect(try bundle.tile(row: side, column: side) == nil)
        }
        #expect(compared == 21)
    }

    @Test func bundleFileNames() {
        #expect(CompactCacheV2Bundle.fileName(row: 5, column: 4) == "R0000C0000.bundle")
        #expect(CompactCacheV2Bundle.fileName(row: 300, column: 1000) == "R0100C0380.bundle")
    }

    /// A bundle whose index points past its end, or claims an absurd size, fails cleanly.
    @Test func hostileIndexRecordsAreTypedErrors() throws {
        var bytes = Data(count: 64 + 8 * 128 * 128 + 10)
        func setRecord(_ slot: Int, offset: UInt64, size: UInt64) {
            let value = (size << 40 | offset).littleEndian
            withUnsafeBytes(of: value) { bytes.replaceSubrange((64 + slot * 8)..<(72 + slot * 8), with: $0) }
        }
        setRecord(0, offset: UInt64(bytes.count - 5), size: 100)     // runs past the end
        setRecord(1, offset: 64, size: 0xFF_FFFF)                     // 16 MiB claimed, over the cap
        setRecord(128, offset: UInt64(bytes.count - 10), size: 10)    // row 1, column 0: fine
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID()).bundle").path
        try bytes.write(to: URL(fileURLWithPath: path))
        let bundle = try CompactCacheV2Bundle(source: FileByteSource(path: path))
        #expect(throws: TileFormatError.self) { try bundle.tile(row: 0, column: 0) }
        #expect(throws: TileFormatError.tileTooLarge(0xFF_FFFF)) { try bundle.tile(row: 0, column: 1) }
        #expect(try bundle.tile(row: 1, column: 0)?.count == 10)
        #expect(try bundle.tile(row: 129, column: 128)?.count == 10, "absolute rows and columns wrap to the bundle")

        try Data(count: 100).write(to: URL(fileURLWithPath: path))
        #expect(throws: TileFormatError.self) { try CompactCacheV2Bundle(source: FileByteSource(path: path)) }
    }
}
