import Foundation
import MapbookCore
import Testing
@testable import TileFormats

func temporaryFile(_ suffix: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-test-\(UUID().uuidString)\(suffix)").path
}

/// A zip written by `ZipWriter` from `entries`, returned as bytes for tests to tamper with.
func zipBytes(_ entries: [(String, Data)]) throws -> Data {
    let path = temporaryFile(".zip")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let writer = try ZipWriter(path: path)
    for (name, data) in entries { try writer.add(name, data) }
    try writer.finish()
    return try Data(contentsOf: URL(fileURLWithPath: path))
}

func openZip(_ bytes: Data) throws -> ZipArchive {
    let path = temporaryFile(".zip")
    try bytes.write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try ZipArchive(source: FileByteSource(path: path))
}

/// Replaces every occurrence of `old` with `new` (same length): names live in both headers.
func patched(_ data: Data, _ old: String, _ new: String) -> Data {
    precondition(old.utf8.count == new.utf8.count)
    var bytes = [UInt8](data)
    let o = Array(old.utf8), n = Array(new.utf8)
    var i = 0
    while i + o.count <= bytes.count {
        if bytes[i..<(i + o.count)].elementsEqual(o) { bytes.replaceSubrange(i..<(i + o.count), with: n) }
        i += 1
    }
    return Data(bytes)
}

@Suite struct ZipArchiveTests {
    @Test func storedEntriesAreReadInPlace() throws {
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        let zip = try openZip(try zipBytes([("a/", Data()), ("a/b.json", Data("{}".utf8)), ("tiles/big.bin", big)]))
        #expect(zip.entries.map(\.name) == ["a/", "a/b.json", "tiles/big.bin"])
        #expect(try zip.contents(of: "a/b.json") == Data("{}".utf8))
        let entry = try #require(zip.entry(named: "tiles/big.bin"))
        let slice = try zip.source(of: entry)
        #expect(slice.size == 300_000)
        #expect(try slice.read(at: 299_990, count: 10) == big.suffix(10))
        #expect(throws: TileFormatError.self) { try slice.read(at: 299_995, count: 10) }
        #expect(try zip.contents(of: "missing") == nil)
    }

    @Test(arguments: ["../evil.txt", "/etc/passwd", "a/../../evil", "C:/evil.txt", "a\\..\\evil"])
    func namesThatClimbOutAreRefused(_ name: String) throws {
        let placeholder = String(repeating: "x", count: name.utf8.count)
        let bytes = patched(try zipBytes([(placeholder, Data("boo".utf8))]), placeholder, name)
        #expect(throws: TileFormatError.self) { try openZip(bytes) }
    }

    /// An entry marked deflated whose stream inflates far past the limit stops there.
    @Test func zipBombIsRefused() throws {
        let bomb = Deflate.deflate(Data(count: 8 << 20), container: .raw, level: 9)
        var bytes = [UInt8](try zipBytes([("bomb.bin", bomb)]))
        // Mark the entry deflated (method 8) in both headers, and let it claim a harmless 1 KiB.
        let central = try #require((0..<(bytes.count - 4)).last { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x01, 0x02]) })
        bytes[8] = 8
        bytes[central + 10] = 8
        bytes.replaceSubrange((central + 24)..<(central + 28), with: [0, 4, 0, 0])
        let zip = try openZip(Data(bytes))
        let entry = try #require(zip.entry(named: "bomb.bin"))
        #expect(entry.method == .deflated)
        #expect(throws: TileFormatError.self) { try zip.contents(of: entry, limit: 1 << 20) }
        #expect(throws: TileFormatError.self, "a compressed entry is never handed out as tile bytes") { try zip.source(of: entry) }
    }

    /// A small deflated entry that claims to inflate a thousand times over (the 2.6 MB
    /// `.tpk` whose bundle claims 1.9 GB): refused before a byte goes into the cache of inflated
    /// entries. Honest entries, even compressible ones, still inflate.
    @Test func anEntryClaimingToInflateFarPastItsSizeIsRefusedBeforeInflating() throws {
        let path = temporaryFile(".tpk")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try ZipWriter(path: path)
        try writer.add("v101/Layers/_alllayers/L00/R0000C0000.bundle", Data(count: 64 << 20), deflated: true)
        try writer.add("honest.bin", Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }), deflated: true)
        try writer.finish()
        let zip = try ZipArchive(source: FileByteSource(path: path))
        let bomb = try #require(zip.entry(named: "v101/Layers/_alllayers/L00/R0000C0000.bundle"))
        #expect(bomb.size / bomb.compressedSize > ZipArchive.maxCompressionRatio)
        let before = BoundedDiskCache.summary(of: ZipArchive.inflated.directory, suffix: ".inflated").bytes
        let error = #expect(throws: TileFormatError.self) { try zip.source(of: bomb) }
        #expect(error?.description.contains("zip bomb") == true)
        #expect(BoundedDiskCache.summary(of: ZipArchive.inflated.directory, suffix: ".inflated").bytes <= before)
        let honest = try #require(zip.entry(named: "honest.bin"))
        #expect(try zip.source(of: honest).size == 2 << 20)
        // More than the disk has free is refused too.
        #expect(throws: TileFormatError.self) { try ZipArchive.checkInflatable(honest, freeBytes: 1 << 20) }
    }

    /// Two entries pointing at the same bytes (overlapping entries inflate one stream many times).
    @Test func overlappingEntriesAreRefused() throws {
        var bytes = [UInt8](try zipBytes([("a.bin", Data(repeating: 1, count: 100)), ("b.bin", Data(repeating: 2, count: 100))]))
        let centrals = (0..<(bytes.count - 4)).filter { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x01, 0x02]) }
        #expect(centrals.count == 2)
        // b.bin's local header offset (central record + 42) made a's.
        bytes.replaceSubrange((centrals[1] + 42)..<(centrals[1] + 46), with: bytes[(centrals[0] + 42)..<(centrals[0] + 46)])
        let error = #expect(throws: TileFormatError.self) { try openZip(Data(bytes)) }
        #expect(error?.description.contains("overlap") == true)
    }

    /// A temporary file left by a process that died mid-write is removed when the cache first
    /// writes (opening it walks nothing: a start that only reads pays nothing).
    @Test func orphanedTemporaryFilesAreRemoved() throws {
        let folder = temporaryFile("-cache")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let orphan = folder + "/abc.inflated.tmp123", fresh = folder + "/def.inflated.tmp456"
        FileManager.default.createFile(atPath: orphan, contents: Data(count: 1000))
        FileManager.default.createFile(atPath: fresh, contents: Data(count: 1000))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: orphan)
        let cache = BoundedDiskCache(directory: folder, limit: 1 << 20, suffix: ".inflated")
        #expect(FileManager.default.fileExists(atPath: orphan), "opening walks nothing")
        cache.write("ghi.inflated", Data(count: 10))
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(FileManager.default.fileExists(atPath: fresh), "a file being written now is left to its writer")
    }

    @Test func corruptArchivesAreTypedErrors() throws {
        let good = try zipBytes([("root.json", Data("{}".utf8))])
        #expect(throws: TileFormatError.self) { try openZip(Data("PK".utf8)) }
        #expect(throws: TileFormatError.self) { try openZip(Data(count: 1000)) }
        #expect(throws: TileFormatError.self) { try openZip(good.prefix(good.count - 5)) }
        // The directory claims 65534 entries in 40-odd bytes.
        var many = good
        many[many.count - 12] = 0xFE; many[many.count - 11] = 0xFF; many[many.count - 14] = 0xFE; many[many.count - 13] = 0xFF
        #expect(throws: TileFormatError.self) { try openZip(many) }
        // A flipped byte in the content fails its CRC.
        var flipped = good
        flipped[30 + "root.json".count] ^= 1
        let zip = try openZip(flipped)
        #expect(throws: TileFormatError.self) { try zip.contents(of: "root.json") }
    }

    @Test func notATilePackage() throws {
        let path = temporaryFile(".zip")
        try zipBytes([("readme.txt", Data("hi".utf8))]).write(to: URL(fileURLWithPath: path))
        #expect(throws: TileFormatError.self) { try TilePackage(path: path) }
        #expect(throws: TileFormatError.self) { try TilePackage(path: path + ".missing") }
    }
}

@Suite struct CompactCacheV1Tests {
    @Test func hostileIndexesAreTypedErrors() throws {
        var index = Data(count: 16 + 5 * 128 * 128)
        func setOffset(_ slot: Int, _ offset: Int) {
            for b in 0..<5 { index[16 + slot * 5 + b] = UInt8(truncatingIfNeeded: offset >> (8 * b)) }
        }
        var bundle = Data(count: 64)
        bundle.append(littleEndian: UInt32(3)); bundle.append(Data([1, 2, 3]))          // a tile at 64
        bundle.append(littleEndian: UInt32(0x7FFF_FFFF))                                // an absurd length at 71
        bundle.append(littleEndian: UInt32(100)); bundle.append(Data([9]))              // runs past the end, at 75
        setOffset(128 * 0 + 0, 64)    // column 0, row 0
        setOffset(128 * 1 + 0, 71)    // column 1, row 0
        setOffset(128 * 0 + 1, 75)    // column 0, row 1
        setOffset(128 * 2 + 0, 1 << 39) // far past the end: no tile
        let indexPath = temporaryFile(".bundlx"), bundlePath = temporaryFile(".bundle")
        try index.write(to: URL(fileURLWithPath: indexPath))
        try bundle.write(to: URL(fileURLWithPath: bundlePath))
        let v1 = try CompactCacheV1Bundle(index: FileByteSource(path: indexPath), data: FileByteSource(path: bundlePath))
        #expect(try v1.tile(row: 0, column: 0) == Data([1, 2, 3]))
        #expect(throws: TileFormatError.tileTooLarge(0x7FFF_FFFF)) { try v1.tile(row: 0, column: 1) }
        #expect(throws: TileFormatError.self) { try v1.tile(row: 1, column: 0) }
        #expect(try v1.tile(row: 0, column: 2) == nil)
        #expect(try v1.tile(row: 5, column: 5) == nil)

        try index.prefix(1000).write(to: URL(fileURLWithPath: indexPath))
        #expect(throws: TileFormatError.self) {
            try CompactCacheV1Bundle(index: FileByteSource(path: indexPath), data: FileByteSource(path: bundlePath))
        }
    }
}
