import Foundation

/// A Compact Cache V2 bundle (`.bundle` in `.tpkx` and `.vtpk`, and in loose V2 caches): a 64-byte
/// header, then 128×128 index records of 8 bytes, row-major; each holds the tile's offset (low 40
/// bits) and size (high 24 bits), size 0 meaning no tile. The header's record counts are not trusted
/// (real files carry odd values): the index alone says where tiles are.
public struct CompactCacheV2Bundle: Sendable {
    public static let tilesPerSide = 128
    static let headerSize = 64
    static let indexSize = 8 * tilesPerSide * tilesPerSide
    /// No real tile is this large; a record claiming more is corrupt.
    public static let maxTileSize: Int64 = 8 << 20

    private let source: any ByteSource
    /// The index, read once (128 KiB).
    private let index: [UInt64]

    public init(source: any ByteSource) throws(TileFormatError) {
        guard source.size >= Int64(Self.headerSize + Self.indexSize) else {
            throw .truncated("a V2 bundle of \(source.size) bytes is shorter than its index")
        }
        let raw = try source.read(at: Int64(Self.headerSize), count: Self.indexSize)
        // Copied in one go: this runs for every bundle opened.
        index = [UInt64](unsafeUninitializedCapacity: Self.tilesPerSide * Self.tilesPerSide) { buffer, count in
            raw.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
            }
            count = buffer.count
            if UInt64(littleEndian: 1) != 1 { for i in 0..<count { buffer[i] = UInt64(littleEndian: buffer[i]) } }
        }
        self.source = source
    }

    /// The tile at `row`, `column` (absolute or within the bundle: taken modulo 128); nil if absent.
    public func tile(row: Int, column: Int) throws(TileFormatError) -> Data? {
        let record = index[Self.tilesPerSide * (row & 127) + (column & 127)]
        let offset = Int64(record & 0xFF_FFFF_FFFF), size = Int64(record >> 40)
        guard size > 0 else { return nil }
        guard size <= Self.maxTileSize else { throw .tileTooLarge(size) }
        return try source.read(at: offset, count: Int(size))
    }

    /// Rows and columns (within the bundle) that hold a tile.
    public func presentTiles() -> [(row: Int, column: Int)] {
        var present: [(row: Int, column: Int)] = []
        var slot = 0
        while slot < index.count {
            if index[slot] >> 40 > 0 { present.append((slot / Self.tilesPerSide, slot % Self.tilesPerSide)) }
            slot += 1
        }
        return present
    }

    /// `R{rrrr}C{cccc}.bundle`: the hexadecimal row and column of the bundle's top-left tile.
    public static func fileName(row: Int, column: Int) -> String {
        String(format: "R%04xC%04x.bundle", row & ~127, column & ~127)
    }
}

extension CompactCacheV2Bundle {
    /// A bundle holding `tiles` (rows and columns within the bundle, 0…127), laid out as Esri writes
    /// them: the 64-byte header, the index, then each tile after its 4-byte length, in index order.
    public static func encode(tiles: [(row: Int, column: Int, data: Data)]) -> Data {
        let sorted = tiles.sorted { ($0.row, $0.column) < ($1.row, $1.column) }
        var index = [UInt64](repeating: 0, count: tilesPerSide * tilesPerSide)
        var body = Data()
        var offset = UInt64(headerSize + indexSize)
        for tile in sorted {
            precondition((0..<tilesPerSide).contains(tile.row) && (0..<tilesPerSide).contains(tile.column))
            let size = UInt64(tile.data.count)
            body.append(littleEndian: UInt32(size))
            offset += 4
            index[tilesPerSide * tile.row + tile.column] = size << 40 | offset
            body.append(tile.data)
            offset += size
        }
        var out = Data(capacity: Int(offset))
        let maxRecord = UInt32(sorted.map(\.data.count).max() ?? 0)
        for field in [3, UInt32(tilesPerSide * tilesPerSide), maxRecord, 5] as [UInt32] { out.append(littleEndian: field) }
        for field in [0, offset, 40] as [UInt64] { out.append(littleEndian: field) }        // slack, file size, user header offset
        for field in [UInt32(20 + indexSize), 3, 16, UInt32(tilesPerSide * tilesPerSide), 5, UInt32(indexSize)] as [UInt32] {
            out.append(littleEndian: field)
        }
        for record in index { out.append(littleEndian: record) }
        out.append(body)
        return out
    }
}

extension Data {
    mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
