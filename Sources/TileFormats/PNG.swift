import Foundation

/// The smallest PNG writer: 8-bit RGBA, no filtering, one IDAT chunk (the sample portal's pictures,
/// and tiles made in tests).
public enum PNG {
    public static func encode(width: Int, height: Int, rgba: [UInt8], level: Int32 = 9) -> Data {
        var raw = Data(capacity: (width * 4 + 1) * height)
        for row in 0..<height {
            raw.append(0) // filter: none
            raw.append(contentsOf: rgba[(row * width * 4)..<((row + 1) * width * 4)])
        }
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [8, 6, 0, 0, 0]) // 8 bits, RGBA, deflate, no filter method, no interlace
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        for (type, body) in [("IHDR", header), ("IDAT", Deflate.deflate(raw, container: .zlib, level: level)), ("IEND", Data())] {
            png.appendBigEndian(UInt32(body.count))
            let chunk = Data(type.utf8) + body
            png.append(chunk)
            png.appendBigEndian(Deflate.crc32(chunk))
        }
        return png
    }
}

extension Data {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
