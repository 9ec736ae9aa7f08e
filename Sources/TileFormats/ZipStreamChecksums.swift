import Foundation

/// Computes a zip's stored-entry CRC-32s from the bytes as they stream past, so a download can be
/// checked without reading the whole file again afterwards. It walks the local headers in order;
/// whatever it cannot follow (a data descriptor, a gap in the stream) is simply left for
/// `ZipArchive.verifyChecksums(streamed:)` to read from disk, so nothing is ever taken on trust.
public struct ZipStreamChecksums: Sendable {
    /// One stored entry's data as the stream saw it: where it began, how long it was, its CRC-32.
    public struct Entry: Sendable, Equatable {
        public var dataOffset: Int64
        public var size: Int64
        public var crc32: UInt32
    }

    private enum State: Sendable {
        /// Collecting a local header: the fixed 30 bytes, then as many more as its name and extra need.
        case header(start: Int64, bytes: [UInt8], needed: Int)
        /// Inside an entry's data; `crc` is nil for entries not checked in the stream (compressed ones).
        case data(start: Int64, left: Int64, size: Int64, crc: UInt32?)
        /// Past the last local header, or lost: nothing more to learn from the stream.
        case finished
    }

    /// The entries seen whole, by the offset of their local header.
    public private(set) var entries: [Int64: Entry] = [:]
    /// How many bytes have been fed: the next byte expected is at this offset.
    public private(set) var position: Int64 = 0
    private var state: State = .header(start: 0, bytes: [], needed: 30)

    public init() {}

    /// Takes the bytes at `offset` in the file. Bytes from offset 0 start over (a restarted
    /// download); bytes from anywhere else but the current position end the stream check.
    public mutating func consume(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        if offset == 0, position != 0 { self = ZipStreamChecksums() }
        guard offset == position else {
            state = .finished
            return
        }
        position += Int64(bytes.count)
        var rest = bytes[...]
        while !rest.isEmpty {
            switch state {
            case .finished:
                return
            case .header(let start, var header, let needed):
                let take = min(needed - header.count, rest.count)
                header.append(contentsOf: rest.prefix(take))
                rest = rest.dropFirst(take)
                state = header.count < needed ? .header(start: start, bytes: header, needed: needed) : parseHeader(header, start: start)
            case .data(let start, let left, let size, let crc):
                let take = Int(min(left, Int64(rest.count)))
                let next = crc.map { Deflate.crc32(UnsafeRawBufferPointer(rebasing: rest.prefix(take)), continuing: $0) }
                rest = rest.dropFirst(take)
                if Int64(take) < left {
                    state = .data(start: start, left: left - Int64(take), size: size, crc: next)
                } else {
                    if let next { entries[start] = Entry(dataOffset: position - Int64(rest.count) - size, size: size, crc32: next) }
                    state = .header(start: position - Int64(rest.count), bytes: [], needed: 30)
                }
            }
        }
    }

    /// Reads a local header once its fixed part, and then its name and extra field, are in.
    private func parseHeader(_ header: [UInt8], start: Int64) -> State {
        func u16(_ at: Int) -> Int { Int(header[at]) | Int(header[at + 1]) << 8 }
        func u32(_ at: Int) -> Int64 { Int64(u16(at)) | Int64(u16(at + 2)) << 16 }
        // Anything but a local header (the central directory, garbage) ends what the stream can tell.
        guard u32(0) == 0x0403_4B50 else { return .finished }
        let flags = u16(6), method = u16(8)
        let fullLength = 30 + u16(26) + u16(28)
        if header.count < fullLength { return .header(start: start, bytes: header, needed: fullLength) }
        // With a data descriptor the sizes come after the data: the stream cannot find the data's end.
        guard flags & 0x8 == 0 else { return .finished }
        var compressedSize = u32(18), size = u32(22)
        if compressedSize == 0xFFFF_FFFF || size == 0xFFFF_FFFF {
            // Zip64: the local extra field holds both sizes, the uncompressed one first.
            var at = 30 + u16(26)
            while at + 4 <= fullLength {
                let id = u16(at), length = u16(at + 2)
                if id == 0x0001, length >= 16, at + 20 <= fullLength {
                    size = u32(at + 4) | u32(at + 8) << 32
                    compressedSize = u32(at + 12) | u32(at + 16) << 32
                    break
                }
                at += 4 + length
            }
        }
        guard compressedSize >= 0, compressedSize != 0xFFFF_FFFF else { return .finished }
        let checksHere = method == 0 && flags & 1 == 0 && compressedSize == size
        let dataStart = start + Int64(fullLength)
        if compressedSize == 0 {
            return .header(start: dataStart, bytes: [], needed: 30)
        }
        return .data(start: start, left: compressedSize, size: compressedSize, crc: checksHere ? 0 : nil)
    }
}
