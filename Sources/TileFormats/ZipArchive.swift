import Foundation
import MapbookCore

/// One file inside a zip archive, as its central directory describes it.
public struct ZipEntry: Sendable, Equatable {
    public enum Method: Sendable, Equatable {
        case stored, deflated, other(UInt16)
    }

    public var name: String
    public var method: Method
    public var compressedSize: Int64
    public var size: Int64
    public var crc32: UInt32
    public var isEncrypted: Bool
    var localHeaderOffset: Int64

    public var isDirectory: Bool { name.hasSuffix("/") }
}

/// Reads a zip archive in place: the central directory is parsed once, stored entries are handed out
/// as byte windows onto the file (deflated ones onto an inflated copy made once), and only small
/// entries are ever read whole. Zip64 is supported, since packages pass 4 GiB. Hostile archives — entry names
/// that climb out (`../`, absolute paths), ranges past the end, inflated sizes past a limit — throw.
public final class ZipArchive: Sendable {
    public let source: any ByteSource
    public let entries: [ZipEntry]
    private let entryIndex: [String: Int]

    /// Refuse central directories larger than this: real packages hold hundreds of entries, not millions.
    static let maxCentralDirectorySize = 64 << 20

    public init(source: any ByteSource) throws(TileFormatError) {
        self.source = source
        let directory = try Self.locateCentralDirectory(in: source)
        var entries: [ZipEntry] = []
        var entryIndex: [String: Int] = [:]
        var reader = LittleEndianReader(data: try source.read(at: directory.offset, count: Int(directory.size)))
        for _ in 0..<directory.count {
            let entry = try Self.readEntry(&reader)
            guard Self.isSafe(entry.name) else { throw .malformed("the package holds an unsafe entry name \"\(entry.name)\"") }
            if entryIndex[entry.name] == nil { entryIndex[entry.name] = entries.count }
            entries.append(entry)
        }
        try Self.checkNoOverlap(entries)
        self.entries = entries
        self.entryIndex = entryIndex
    }

    /// Entries whose bytes overlap (a zip bomb's trick: many entries, one compressed stream) are
    /// refused: in a real package every entry has bytes of its own.
    static func checkNoOverlap(_ entries: [ZipEntry]) throws(TileFormatError) {
        let files = entries.filter { !$0.isDirectory || $0.compressedSize > 0 }.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        for (current, next) in zip(files, files.dropFirst()) {
            // A local header is at least 30 bytes and the name; then the entry's compressed bytes.
            let (end, overflow) = current.localHeaderOffset.addingReportingOverflow(30 + Int64(current.name.utf8.count) + current.compressedSize)
            guard !overflow, next.localHeaderOffset >= end else {
                throw .malformed("\(current.name) and \(next.name) overlap in the package")
            }
        }
    }

    /// Deflate cannot shrink data more than about 1,032 to 1: an entry that claims more is lying.
    static let maxCompressionRatio: Int64 = 1000
    /// Large entries compressed this far are no tile bundle (those hold mostly JPEG and PNG tiles,
    /// which barely compress): refused as a bomb.
    static let maxLargeEntryRatio: Int64 = 100
    static let largeEntry: Int64 = 256 << 20

    /// Refuses, before a byte is inflated, an entry whose declared size is more than its
    /// compressed bytes could honestly hold, or more than the cache or the disk can take.
    static func checkInflatable(_ entry: ZipEntry, freeBytes: Int64?) throws(TileFormatError) {
        guard entry.size <= maxInflatedEntry else { throw .tileTooLarge(entry.size) }
        let compressed = max(entry.compressedSize, 1)
        let ratio = entry.size / compressed
        if entry.size > 1 << 20, ratio > maxCompressionRatio || (entry.size > largeEntry && ratio > maxLargeEntryRatio) {
            throw .malformed("\(entry.name) claims to inflate \(ratio) times over (\(entry.compressedSize) to \(entry.size) bytes): refused as a zip bomb")
        }
        if let freeBytes, entry.size > freeBytes - (64 << 20) {
            throw .cannotOpen(path: entry.name, reason: "inflating it needs \(entry.size >> 20) MiB and the disk has \(max(freeBytes, 0) >> 20) MiB free")
        }
    }

    public func entry(named name: String) -> ZipEntry? { entryIndex[name].map { entries[$0] } }

    /// An entry's bytes, read in place: a stored entry from the archive itself; a deflated one (ArcMap
    /// writes tile packages with deflated bundles) from its inflated copy in `inflated`, made once,
    /// piece by piece, and kept only when its size and CRC-32 are the archive's.
    public func source(of entry: ZipEntry) throws(TileFormatError) -> ByteSourceSlice {
        guard !entry.isEncrypted else { throw .malformed("\(entry.name) is encrypted") }
        switch entry.method {
        case .stored:
            guard entry.compressedSize == entry.size else { throw .malformed("\(entry.name) is stored but its two sizes differ") }
            return try ByteSourceSlice(source, start: try dataOffset(of: entry), size: entry.size)
        case .deflated:
            return try ByteSourceSlice(try diskCopy(of: entry), start: 0, size: entry.size)
        case .other(let method):
            throw .malformed("\(entry.name) uses unsupported compression method \(method)")
        }
    }

    /// Inflated entries, kept to be read in place: at most 4 GiB, least recently used out first.
    public static let inflated = BoundedDiskCache(directory: XDGDirectories.cache() + "/inflated", limit: 4 << 30, suffix: ".inflated")

    /// No real bundle comes near this; an entry claiming more is refused before anything is written.
    static let maxInflatedEntry: Int64 = 2 << 30

    /// Named by what the archive says of the entry (the copy is kept only once it matches that), so
    /// an entry with the same name, sizes and CRC-32 in another copy of the package shares it.
    static func inflatedName(of entry: ZipEntry) -> String {
        BoundedDiskCache.name(for: "\(entry.name)|\(entry.compressedSize)|\(entry.size)|\(entry.crc32)") + ".inflated"
    }

    /// An entry as a file of its own, for readers that need a path (SQLite opens a packaged
    /// geodatabase this way): kept in `inflated` like a deflated bundle, stored entries copied.
    public func fileCopy(of entry: ZipEntry) throws(TileFormatError) -> String {
        guard !entry.isEncrypted else { throw .malformed("\(entry.name) is encrypted") }
        return try diskCopy(of: entry).path
    }

    private func diskCopy(of entry: ZipEntry) throws(TileFormatError) -> FileByteSource {
        try Self.checkInflatable(entry, freeBytes: nil)
        let cache = Self.inflated
        let name = Self.inflatedName(of: entry)
        if let path = cache.existingPath(name), let kept = try? FileByteSource(path: path), kept.size == entry.size { return kept }
        guard let temporary = cache.temporaryPath(for: name) else {
            throw .cannotOpen(path: cache.directory, reason: "the folder for inflated package entries cannot be made")
        }
        try Self.checkInflatable(entry, freeBytes: DiskSpace.available(at: cache.directory))
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: temporary, reason: String(cString: strerror(errno))) }
        var keep = false
        defer {
            close(fd)
            if !keep { unlink(temporary) }
        }
        let write: (UnsafeRawBufferPointer) throws(TileFormatError) -> Void = { bytes throws(TileFormatError) in
            var written = 0
            while written < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
                guard n > 0 else {
                    throw .cannotOpen(path: temporary, reason: "could not be written (\(String(cString: strerror(errno))))")
                }
                written += n
            }
        }
        switch entry.method {
        case .stored: try copyStored(entry, into: write)
        case .deflated: try inflate(entry, into: write)
        case .other(let method): throw .malformed("\(entry.name) uses unsupported compression method \(method)")
        }
        keep = true
        cache.adopt(temporary, as: name)
        guard let path = cache.existingPath(name) else { throw .cannotOpen(path: cache.directory + "/" + name, reason: "it went missing") }
        return try FileByteSource(path: path)
    }

    /// A stored entry a piece at a time into `output`, checked against its CRC-32.
    private func copyStored(_ entry: ZipEntry, into output: (UnsafeRawBufferPointer) throws(TileFormatError) -> Void) throws(TileFormatError) {
        let data = try source(of: entry)
        var crc: UInt32 = 0, offset: Int64 = 0
        while offset < entry.size {
            let piece = try data.read(at: offset, count: Int(min(Int64(4 << 20), entry.size - offset)))
            crc = Deflate.crc32(piece, continuing: crc)
            var failure: TileFormatError?
            piece.withUnsafeBytes { bytes in
                do throws(TileFormatError) { try output(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
            offset += Int64(piece.count)
        }
        guard crc == entry.crc32 else { throw .malformed("\(entry.name) fails its CRC check") }
    }

    /// Inflates a deflated entry a piece at a time into `output`; throws unless it comes to exactly
    /// the size and CRC-32 the archive records (and stops there, whatever the stream claims).
    private func inflate(_ entry: ZipEntry, into output: (UnsafeRawBufferPointer) throws(TileFormatError) -> Void) throws(TileFormatError) {
        let compressed = try ByteSourceSlice(source, start: try dataOffset(of: entry), size: entry.compressedSize)
        let inflater = try Deflate.Inflater(container: .raw, limit: entry.size)
        var crc: UInt32 = 0, read: Int64 = 0, ended = false
        while !ended {
            let count = Int(min(Int64(1 << 20), entry.compressedSize - read))
            let piece = try compressed.read(at: read, count: count)
            read += Int64(count)
            ended = try inflater.feed(piece, last: read == entry.compressedSize) { bytes throws(TileFormatError) in
                crc = Deflate.crc32(bytes, continuing: crc)
                try output(bytes)
            }
        }
        guard inflater.produced == entry.size else { throw .malformed("\(entry.name) inflates to a different size than recorded") }
        guard crc == entry.crc32 else { throw .malformed("\(entry.name) fails its CRC check") }
    }

    /// A whole entry, stored or deflated, refused past `limit` bytes and checked against its CRC.
    public func contents(of entry: ZipEntry, limit: Int = 64 << 20) throws(TileFormatError) -> Data {
        guard !entry.isEncrypted else { throw .malformed("\(entry.name) is encrypted") }
        switch entry.method {
        case .stored:
            guard entry.size <= Int64(limit) else { throw .tileTooLarge(entry.size) }
            let data = try source(of: entry).read(at: 0, count: Int(entry.size))
            guard Deflate.crc32(data) == entry.crc32 else { throw .malformed("\(entry.name) fails its CRC check") }
            return data
        case .deflated:
            // The declared size is only a claim: inflating stops at it whatever the stream says.
            guard entry.compressedSize <= Int64(limit), entry.size <= Int64(limit) else { throw .tileTooLarge(entry.size) }
            try Self.checkInflatable(entry, freeBytes: nil)
            var data = Data(capacity: Int(entry.size))
            try inflate(entry) { bytes throws(TileFormatError) in data.append(contentsOf: bytes) }
            return data
        case .other(let method):
            throw .malformed("\(entry.name) uses unsupported compression method \(method)")
        }
    }

    /// Checks every entry against the CRC-32 the archive records for it: a package's own checksums,
    /// which catch bytes damaged in transit. An entry whose CRC was computed as the file streamed in
    /// (`streamed`, over exactly the bytes the central directory names) is not read again; the rest
    /// are read, stored ones in pieces, so a package of any size is checked in little memory.
    /// Returns the number of bytes read to check.
    @discardableResult
    public func verifyChecksums(streamed: ZipStreamChecksums? = nil) throws(TileFormatError) -> Int64 {
        let piece = 4 << 20
        var checked: Int64 = 0
        for entry in entries where !entry.isDirectory {
            if let seen = streamed?.entries[entry.localHeaderOffset], entry.method == .stored, !entry.isEncrypted,
               seen.size == entry.compressedSize, seen.size == entry.size, seen.dataOffset == (try dataOffset(of: entry)) {
                guard seen.crc32 == entry.crc32 else { throw .malformed("\(entry.name) fails its CRC check") }
                continue
            }
            if entry.method == .stored, !entry.isEncrypted {
                let data = try source(of: entry)
                var crc: UInt32 = 0, offset: Int64 = 0
                while offset < entry.size {
                    let count = Int(min(Int64(piece), entry.size - offset))
                    crc = Deflate.crc32(try data.read(at: offset, count: count), continuing: crc)
                    offset += Int64(count)
                }
                guard crc == entry.crc32 else { throw .malformed("\(entry.name) fails its CRC check") }
            } else if entry.method == .deflated, !entry.isEncrypted {
                try inflate(entry) { _ throws(TileFormatError) in }
            } else {
                _ = try contents(of: entry)
            }
            checked += entry.size
        }
        return checked
    }

    public func contents(of name: String, limit: Int = 64 << 20) throws(TileFormatError) -> Data? {
        guard let entry = entry(named: name) else { return nil }
        return try contents(of: entry, limit: limit)
    }

    /// Entry data follows its local header, whose name and extra lengths may differ from the central
    /// directory's copy.
    private func dataOffset(of entry: ZipEntry) throws(TileFormatError) -> Int64 {
        var header = LittleEndianReader(data: try source.read(at: entry.localHeaderOffset, count: 30))
        guard try header.u32() == 0x0403_4B50 else { throw .malformed("\(entry.name) has no local header") }
        try header.skip(22)
        let nameLength = Int64(try header.u16()), extraLength = Int64(try header.u16())
        return entry.localHeaderOffset + 30 + nameLength + extraLength
    }

    private struct CentralDirectory { var offset: Int64; var size: Int64; var count: Int }

    private static func locateCentralDirectory(in source: any ByteSource) throws(TileFormatError) -> CentralDirectory {
        // The end record (22 bytes + a comment of up to 64 KiB) is found by scanning back from the end.
        let tailSize = Int(min(source.size, 22 + 0xFFFF))
        guard tailSize >= 22 else { throw .truncated("a zip of \(source.size) bytes is too short to be one") }
        let tailStart = source.size - Int64(tailSize)
        let tail = try source.read(at: tailStart, count: tailSize)
        let found = tail.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
            (0...(tailSize - 22)).reversed().first {
                bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x05 && bytes[$0 + 3] == 0x06
            }
        }
        guard let position = found else { throw .malformed("not a zip archive (no end of central directory)") }

        var end = LittleEndianReader(data: tail.subdata(in: position..<tailSize))
        try end.skip(10)
        var count = Int64(try end.u16())
        var size = Int64(try end.u32()), offset = Int64(try end.u32())
        let endOffset = tailStart + Int64(position)
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            // Zip64: a locator just before the end record points at the 64-bit end record.
            guard endOffset >= 20 else { throw .malformed("a zip64 archive lacks its locator") }
            var locator = LittleEndianReader(data: try source.read(at: endOffset - 20, count: 20))
            guard try locator.u32() == 0x0706_4B50 else { throw .malformed("a zip64 archive lacks its locator") }
            try locator.skip(4)
            let recordOffset = Int64(bitPattern: try locator.u64())
            var record = LittleEndianReader(data: try source.read(at: recordOffset, count: 56))
            guard try record.u32() == 0x0606_4B50 else { throw .malformed("the zip64 end record is missing") }
            try record.skip(28)
            count = Int64(bitPattern: try record.u64())
            size = Int64(bitPattern: try record.u64())
            offset = Int64(bitPattern: try record.u64())
        }
        guard size <= maxCentralDirectorySize, count >= 0, count <= size / 46 else {
            throw .malformed("the zip's central directory claims \(count) entries in \(size) bytes")
        }
        return CentralDirectory(offset: offset, size: size, count: Int(count))
    }

    private static func readEntry(_ reader: inout LittleEndianReader) throws(TileFormatError) -> ZipEntry {
        guard try reader.u32() == 0x0201_4B50 else { throw .malformed("the zip's central directory is corrupt") }
        try reader.skip(4)
        let flags = try reader.u16(), method = try reader.u16()
        try reader.skip(4)
        let crc = try reader.u32()
        var compressedSize = Int64(try reader.u32()), size = Int64(try reader.u32())
        let nameLength = Int(try reader.u16()), extraLength = Int(try reader.u16()), commentLength = Int(try reader.u16())
        try reader.skip(8)
        var localHeaderOffset = Int64(try reader.u32())
        let nameBytes = try reader.bytes(nameLength)
        var extra = LittleEndianReader(data: try reader.bytes(extraLength))
        try reader.skip(commentLength)

        // Zip64 extra field: the 64-bit values of exactly those fields that hold 0xFFFFFFFF, in order.
        while extra.remaining >= 4 {
            let id = try extra.u16(), length = Int(try extra.u16())
            var field = LittleEndianReader(data: try extra.bytes(length))
            guard id == 0x0001 else { continue }
            if size == 0xFFFF_FFFF { size = Int64(bitPattern: try field.u64()) }
            if compressedSize == 0xFFFF_FFFF { compressedSize = Int64(bitPattern: try field.u64()) }
            if localHeaderOffset == 0xFFFF_FFFF { localHeaderOffset = Int64(bitPattern: try field.u64()) }
        }
        guard size >= 0, compressedSize >= 0, localHeaderOffset >= 0 else {
            throw .malformed("a zip entry has a negative size or offset")
        }
        let methodKind: ZipEntry.Method = method == 0 ? .stored : method == 8 ? .deflated : .other(method)
        return ZipEntry(name: String(decoding: nameBytes, as: UTF8.self), method: methodKind,
                        compressedSize: compressedSize, size: size, crc32: crc,
                        isEncrypted: flags & 1 != 0, localHeaderOffset: localHeaderOffset)
    }

    /// A name is safe when, extracted, it would stay inside the destination.
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\0") else { return false }
        if name.count >= 2, name.dropFirst().first == ":" { return false } // a drive letter
        return !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
    }
}

/// Sequential little-endian reads from a small buffer, each checked against what is left.
struct LittleEndianReader {
    private let data: Data
    private var position: Int

    init(data: Data) {
        self.data = Data(data)
        position = 0
    }

    var remaining: Int { data.count - position }

    mutating func bytes(_ count: Int) throws(TileFormatError) -> Data {
        guard count >= 0, count <= remaining else { throw .truncated("a record ends early") }
        defer { position += count }
        return data.subdata(in: position..<(position + count))
    }

    mutating func skip(_ count: Int) throws(TileFormatError) { _ = try bytes(count) }

    mutating func u16() throws(TileFormatError) -> UInt16 { UInt16(try integer(2)) }
    mutating func u32() throws(TileFormatError) -> UInt32 { UInt32(try integer(4)) }
    mutating func u64() throws(TileFormatError) -> UInt64 { try integer(8) }

    private mutating func integer(_ width: Int) throws(TileFormatError) -> UInt64 {
        guard width <= remaining else { throw .truncated("a record ends early") }
        var value: UInt64 = 0
        for i in 0..<width { value |= UInt64(data[position + i]) << (8 * i) }
        position += width
        return value
    }
}
