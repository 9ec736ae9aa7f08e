import CChecksum
import CZlib
import Foundation

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
        var stream = z_stream()
        guard mb_inflate_init2(&stream, container.windowBits) == Z_OK else { throw .malformed("zlib could not start") }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var status: Int32 = Z_OK
        let input = Data(data) // contiguous, zero-based
        let failure: TileFormatError? = input.withUnsafeBytes { inBytes in
            stream.next_in = UnsafeMutablePointer(mutating: inBytes.bindMemory(to: UInt8.self).baseAddress)
            stream.avail_in = uInt(inBytes.count)
            repeat {
                status = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else { return .tileTooLarge(Int64(output.count + produced)) }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_BUF_ERROR && stream.avail_in == 0 { return .truncated("the compressed data ends early") }
            } while status == Z_OK
            return status == Z_STREAM_END ? nil : .malformed("the compressed data is corrupt")
        }
        if let failure { throw failure }
        return output
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
