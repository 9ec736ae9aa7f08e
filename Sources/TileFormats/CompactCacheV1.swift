import Foundation

/// A Compact Cache V1 bundle (`.tpk`, ArcGIS 10.0–10.2 caches): the index lives beside the data in a
/// `.bundlx` file — a 16-byte header, then 128×128 five-byte little-endian offsets, column-major — and
/// each offset points into the `.bundle` at a 4-byte little-endian length followed by the tile.
public struct CompactCacheV1Bundle: Sendable {
    static let indexHeaderSize = 16
    static let indexSize = 5 * CompactCacheV2Bundle.tilesPerSide * CompactCacheV2Bundle.tilesPerSide

    private let data: any ByteSource
    /// Offsets into `data`, by `128 * column + row`.
    private let offsets: [Int64]

    public init(index: any ByteSource, data: any ByteSource) throws(TileFormatError) {
        guard index.size >= Int64(Self.indexHeaderSize + Self.indexSize) else {
            throw .truncated("a V1 bundle index of \(index.size) bytes is shorter than 128×128 records")
        }
        let raw = try index.read(at: Int64(Self.indexHeaderSize), count: Self.indexSize)
        offsets = raw.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offsets = [Int64](repeating: 0, count: Self.indexSize / 5)
            var slot = 0
            while slot < offsets.count {
                var value: Int64 = 0
                for byte in 0..<5 { value |= Int64(bytes[slot * 5 + byte]) << (8 * byte) }
                offsets[slot] = value
                slot += 1
            }
            return offsets
        }
        self.data = data
    }

    /// The tile at `row`, `column` (absolute or within the bundle); nil if absent.
    public func tile(row: Int, column: Int) throws(TileFormatError) -> Data? {
        let offset = offsets[CompactCacheV2Bundle.tilesPerSide * (column & 127) + (row & 127)]
        // Empty slots point at the 4-byte length of nothing, or at nothing at all.
        guard offset > 0, offset + 4 <= data.size else { return nil }
        let lengthBytes = try data.read(at: offset, count: 4)
        let length = lengthBytes.withUnsafeBytes { Int64(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        guard length > 0 else { return nil }
        guard length <= CompactCacheV2Bundle.maxTileSize else { throw .tileTooLarge(length) }
        return try data.read(at: offset + 4, count: Int(length))
    }

    /// Rows and columns (within the bundle) that hold a tile: each slot's length is read.
    public func presentTiles() throws(TileFormatError) -> [(row: Int, column: Int)] {
        var present: [(row: Int, column: Int)] = []
        for slot in offsets.indices {
            let offset = offsets[slot]
            guard offset > 0, offset + 4 <= data.size else { continue }
            let length = try data.read(at: offset, count: 4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            if length > 0 { present.append((slot % 128, slot / 128)) }
        }
        return present
    }
}
