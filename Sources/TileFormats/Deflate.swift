import CChecksum
import CZlib
import Foundation
import Synchronization

/// gzip and raw deflate through zlib. Inflating is always bounded: a tile or zip entry that would
/// expand past `limit` is refused, whatever its header claims, so a bomb costs at most `limit` bytes.
public enum Deflate {
    public enum Container: Sendable {
        /// RFC 1952 (vector tiles in packages and services).
        case gzip
        /// RFC 1950 (PNG image data).
        case zlib
        /// RFC 1951 with no header (zip entries).
        case raw

        fileprivate var windowBits: Int32 {
            switch self {
            case .gzip: return 15 + 16
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    public static func isGzip(_ data: Data) -> Bool {
        data.count >= 2 && data[data.startIndex] == 0x1F && data[data.startIndex + 1] == 0x8B
    }

    /// The inflated bytes; throws `.malformed` for a corrupt stream and `.tileTooLarge` past `limit`.
    public static func inflate(_ data: Data, container: Container = .gzip, limit: Int) throws(TileFormatError) -> Data {
        var output = Data()
        let inflater = try Inflater(container: container, limit: Int64(limit))
        let done = try inflater.feed(data, last: true) { piece throws(TileFormatError) in output.append(contentsOf: piece) }
        guard done else { throw .truncated("the compressed data ends early") }
        return output
    }

    /// Inflates a stream fed in pieces, handing the output on in pieces: how a large deflated zip
    /// entry is inflated without holding it whole. Past `limit` output bytes it throws.
    public final class Inflater {
        private var stream = z_stream()
        private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        private let limit: Int64
        public private(set) var produced: Int64 = 0

        public init(container: Container, limit: Int64) throws(TileFormatError) {
            self.limit = limit
            guard mb_inflate_init2(&stream, container.windowBits) == Z_OK else { throw .malformed("zlib could not start") }
        }

        deinit {
            inflateEnd(&stream)
            chunk.deallocate()
        }

        /// Feeds `input`; returns true once the stream has ended. `last` says no more input follows,
        /// so a stream that has not ended by then is cut short.
        public func feed(_ input: Data, last: Bool,
                         output: (UnsafeRawBufferPointer) throws(TileFormatError) -> Void) throws(TileFormatError) -> Bool {
            // A copy that stays put while zlib reads it (Data's storage may move between calls).
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(input.count, 1), alignment: 16)
            defer { bytes.deallocate() }
            input.copyBytes(to: bytes.bindMemory(to: UInt8.self))
            stream.next_in = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_in = uInt(input.count)
            var status: Int32 = Z_OK
            repeat {
                stream.next_out = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self)
                stream.avail_out = uInt(chunk.count)
                status = CZlib.inflate(&stream, Z_NO_FLUSH)
                let count = chunk.count - Int(stream.avail_out)
                produced += Int64(count)
                guard produced <= limit else { throw .tileTooLarge(produced) }
                if count > 0 { try output(UnsafeRawBufferPointer(rebasing: chunk[0..<count])) }
            } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
            switch status {
            case Z_STREAM_END: return true
            case Z_OK, Z_BUF_ERROR:
                if last { throw .truncated("the compressed data ends early") }
                return false
            default: throw .malformed("the compressed data is corrupt")
            }
        }
    }

    /// Compresses `data`. The gzip header carries no time or name, so equal input gives equal output.
    public static func deflate(_ data: Data, container: Container = .gzip, level: Int32 = 6) -> Data {
        var stream = z_stream()
        precondition(mb_deflate_init2(&stream, level, container.windowBits) == Z_OK, "zlib deflateInit2 failed")
        defer { deflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let input = Data(data)
        input.withUnsafeBytes { inBytes in
            stream.next_in = UnsafeMutablePointer(mutating: inBytes.bindMemory(to: UInt8.self).baseAddress)
            stream.avail_in = uInt(inBytes.count)
            var status: Int32
            repeat {
                status = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    return CZlib.deflate(&stream, Z_FINISH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
            } while status == Z_OK
        }
        return output
    }

    /// `bytes` as one zlib stream (RFC 1950) deflated in `pieces` parts at once, one a processor (as
    /// pigz does): each part but the last ends on a byte boundary (a sync flush) and none refers to
    /// another's bytes, so the parts joined are one valid stream; the Adler-32 of the whole is
    /// combined from the parts'. For pictures sent to a terminal, where time matters more than the
    /// last few per cent of size.
    public static func zlibInParallel(_ bytes: UnsafeRawBufferPointer, level: Int32 = 1,
                                      pieces: Int = ProcessInfo.processInfo.activeProcessorCount) -> Data {
        // A part under 256 KiB is not worth a thread.
        let count = max(1, min(pieces, bytes.count / (256 << 10)))
        let size = (bytes.count + count - 1) / max(count, 1)
        let parts = Mutex([Data](repeating: Data(), count: count))
        let sums = Mutex([UInt](repeating: 1, count: count))
        nonisolated(unsafe) let input = bytes
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let start = min(index * size, input.count), end = min(start + size, input.count)
            let piece = UnsafeRawBufferPointer(rebasing: input[start..<end])
            let deflated = rawPart(piece, level: level, last: index == count - 1)
            let sum = UInt(adler32(1, piece.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(piece.count)))
            parts.withLock { $0[index] = deflated }
            sums.withLock { $0[index] = sum }
        }
        var adler = sums.withLock { $0[0] }
        for index in 1..<count {
            let length = min(size, bytes.count - index * size)
            adler = UInt(adler32_combine(uLong(adler), uLong(sums.withLock { $0[index] }), off_t(length)))
        }
        // CMF 0x78 (deflate, 32 KiB window), FLG 0x01: the fastest level, no dictionary, check bits.
        var out = Data([0x78, 0x01])
        for part in parts.withLock({ $0 }) { out.append(part) }
        out.append(contentsOf: [UInt8(adler >> 24 & 0xFF), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)])
        return out
    }

    /// One part of a parallel stream: raw deflate, ended by a sync flush, or final when `last`.
    private static func rawPart(_ piece: UnsafeRawBufferPointer, level: Int32, last: Bool) -> Data {
        var stream = z_stream()
        precondition(mb_deflate_init2(&stream, level, Container.raw.windowBits) == Z_OK, "zlib deflateInit2 failed")
        defer { deflateEnd(&stream) }
        // deflateBound covers a finished stream; a sync flush adds at most a few bytes more.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(piece.count))) + 64)
        stream.next_in = UnsafeMutablePointer(mutating: piece.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(piece.count)
        let written = output.withUnsafeMutableBufferPointer { out -> Int in
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            let status = CZlib.deflate(&stream, last ? Z_FINISH : Z_SYNC_FLUSH)
            precondition(status == (last ? Z_STREAM_END : Z_OK) && stream.avail_in == 0, "zlib deflate could not finish a part")
            return out.count - Int(stream.avail_out)
        }
        return Data(output[0..<written])
    }

    /// The CRC-32 of `data` as zip uses it, continuing from `previous` when checking in pieces.
    public static func crc32(_ data: Data, continuing previous: UInt32 = 0) -> UInt32 {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in crc32(bytes, continuing: previous) }
    }

    public static func crc32(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else { return previous }
        // Downloads are checked as they arrive: the bulk goes through the carry-less multiply fold where
        // the processor has one, the last few bytes (and everything elsewhere) through zlib.
        var crc = previous, done = 0
        if bytes.count >= 64, canFold {
            done = bytes.count & ~15
            crc = mb_crc32_fold(crc, base, done)
        }
        while done < bytes.count {
            let piece = min(bytes.count - done, 1 << 30)
            crc = UInt32(CZlib.crc32(uLong(crc), base + done, uInt(piece)))
            done += piece
        }
        return crc
    }

    private static let canFold = mb_crc32_fold_available() != 0
}
