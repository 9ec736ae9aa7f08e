import Foundation
import Testing
@testable import TileFormats

/// Feeds `bytes` to a stream check in pieces of `pieceSize`, as a download would.
private func streamed(_ bytes: Data, pieceSize: Int, from start: Int = 0) -> ZipStreamChecksums {
    var checksums = ZipStreamChecksums()
    var offset = start
    while offset < bytes.count {
        let end = min(offset + pieceSize, bytes.count)
        bytes[offset..<end].withUnsafeBytes { (piece: UnsafeRawBufferPointer) in checksums.consume(piece, at: Int64(offset)) }
        offset = end
    }
    return checksums
}

@Suite struct ZipStreamChecksumsTests {
    let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    @Test(arguments: [1, 7, 4096, 1 << 20])
    func everyStoredEntryIsCheckedAsItStreams(pieceSize: Int) throws {
        let bytes = try zipBytes([("a/", Data()), ("a/b.json", Data("{}".utf8)), ("tiles/big.bin", big), ("z.txt", Data("z".utf8))])
        let checksums = streamed(bytes, pieceSize: pieceSize)
        let zip = try openZip(bytes)
        for entry in zip.entries where entry.size > 0 {
            #expect(checksums.entries[entry.localHeaderOffset]?.crc32 == entry.crc32, "\(entry.name)")
        }
        #expect(try zip.verifyChecksums(streamed: checksums) == 0, "nothing is read again")
        #expect(try zip.verifyChecksums() == 300_003, "without the stream everything is read")
    }

    @Test func damageInTransitIsCaughtFromTheStream() throws {
        var bytes = try zipBytes([("tiles/big.bin", big)])
        bytes[1000] ^= 0x40
        let zip = try openZip(bytes)
        #expect(throws: TileFormatError.self) { try zip.verifyChecksums(streamed: streamed(bytes, pieceSize: 4096)) }
    }

    @Test func aRestartFromZeroStartsOverAndAGapLeavesTheRestToTheDisk() throws {
        let bytes = try zipBytes([("a.bin", big), ("b.bin", big)])
        let zip = try openZip(bytes)
        // Half of it, then the server ignored Range and everything came again from 0.
        var restarted = streamed(bytes.prefix(200_000), pieceSize: 65_536)
        bytes.withUnsafeBytes { (all: UnsafeRawBufferPointer) in restarted.consume(all, at: 0) }
        #expect(try zip.verifyChecksums(streamed: restarted) == 0)

        // A piece that does not follow on: the stream stops telling, the check reads from disk.
        var gap = streamed(bytes.prefix(100_000), pieceSize: 65_536)
        bytes[200_000...].withUnsafeBytes { (rest: UnsafeRawBufferPointer) in gap.consume(rest, at: 200_000) }
        #expect(gap.entries.isEmpty)
        #expect(try zip.verifyChecksums(streamed: gap) == 600_000)
    }

    /// A local header that names another size than the central directory: its streamed CRC covered
    /// other bytes, so it is not used.
    @Test func aLocalHeaderThatDisagreesIsReadFromDisk() throws {
        var bytes = try zipBytes([("a.bin", big), ("b.bin", Data("bee".utf8))])
        // The local header's compressed and uncompressed sizes (offsets 18 and 22) claim 10 bytes.
        bytes.replaceSubrange(18..<26, with: [10, 0, 0, 0, 10, 0, 0, 0])
        let zip = try openZip(bytes)
        #expect(try zip.verifyChecksums(streamed: streamed(bytes, pieceSize: 4096)) == 300_003)
    }

    /// Zip64 local headers (large packages) carry their sizes in the extra field.
    @Test func zip64LocalHeadersAreFollowed() throws {
        let payload = Data("zip64 payload".utf8), second = Data("after".utf8)
        var bytes = Data()
        var central = Data()
        func le(_ value: UInt64, _ width: Int) -> Data { Data((0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }) }
        for (name, data, zip64) in [("big.bin", payload, true), ("next.bin", second, false)] {
            let offset = UInt64(bytes.count), crc = UInt64(Deflate.crc32(data)), size = UInt64(data.count)
            let extra = zip64 ? le(1, 2) + le(16, 2) + le(size, 8) + le(size, 8) : Data()
            bytes += le(0x0403_4B50, 4) + le(45, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(crc, 4)
            bytes += zip64 ? le(0xFFFF_FFFF, 4) + le(0xFFFF_FFFF, 4) : le(size, 4) + le(size, 4)
            bytes += le(UInt64(name.utf8.count), 2) + le(UInt64(extra.count), 2) + Data(name.utf8) + extra + data
            central += le(0x0201_4B50, 4) + le(45, 2) + le(45, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(crc, 4)
            central += le(size, 4) + le(size, 4) + le(UInt64(name.utf8.count), 2) + le(0, 2) + le(0, 2)
            central += le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4) + Data(name.utf8)
        }
        let centralOffset = UInt64(bytes.count)
        bytes += central
        bytes += le(0x0605_4B50, 4) + le(0, 4) + le(2, 2) + le(2, 2) + le(UInt64(central.count), 4) + le(centralOffset, 4) + le(0, 2)

        let checksums = streamed(bytes, pieceSize: 3)
        #expect(checksums.entries.count == 2)
        let zip = try openZip(bytes)
        #expect(try zip.verifyChecksums(streamed: checksums) == 0)
    }
}

@Suite struct CRC32Tests {
    /// The textbook bit-at-a-time CRC-32, independent of zlib and of the folding code.
    static func reference(_ bytes: [UInt8], continuing previous: UInt32 = 0) -> UInt32 {
        var crc = ~previous
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func theKnownCheckValue() {
        #expect(Deflate.crc32(Data("123456789".utf8)) == 0xCBF4_3926)
    }

    /// Every length around the fold's 16- and 64-byte steps, at every alignment, continuing from a
    /// running value: the fast path must agree with the textbook one bit for bit.
    @Test func theFoldAgreesWithTheTextbookAtEveryLengthAndAlignment() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<4200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in Array(0...200) + [255, 256, 257, 1000, 4095, 4096, 4097] {
            for start in 0..<4 {
                let slice = Array(data[start..<(start + length)])
                let previous: UInt32 = length % 3 == 0 ? 0 : 0x1234_5678 &* UInt32(length)
                let fast = slice.withUnsafeBytes { Deflate.crc32($0, continuing: previous) }
                #expect(fast == Self.reference(slice, continuing: previous), "length \(length) at offset \(start)")
            }
        }
    }
}
