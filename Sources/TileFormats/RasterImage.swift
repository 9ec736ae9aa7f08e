import CStb
import Foundation
import MapbookCore

/// Decoded pixels of a PNG or JPEG (raster tiles, item thumbnails): 8-bit RGBA, row by row.
public struct RasterImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes: red, green, blue, alpha.
    public let rgba: [UInt8]

    /// Larger images are refused before any pixel is decoded: thumbnails and tiles are far smaller,
    /// and a hostile header must not make us allocate gigabytes.
    public static let maxPixels = 4096 * 4096

    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(width >= 0 && height >= 0 && rgba.count == width * height * 4)
        self.width = width; self.height = height; self.rgba = rgba
    }

    /// Decodes PNG or JPEG bytes.
    public init(decoding data: Data) throws(TileFormatError) {
        guard data.count >= 8, data.count <= Int(Int32.max) else {
            throw .malformed("the image is \(data.count) bytes, too small or too large to decode")
        }
        let pixels: (width: Int, height: Int, rgba: [UInt8])? = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let length = Int32(bytes.count)
            var w: Int32 = 0, h: Int32 = 0, channels: Int32 = 0
            guard stbi_info_from_memory(base, length, &w, &h, &channels) == 1, w > 0, h > 0,
                  Int(w) * Int(h) <= Self.maxPixels else { return nil }
            guard let decoded = stbi_load_from_memory(base, length, &w, &h, &channels, 4) else { return nil }
            defer { stbi_image_free(decoded) }
            let count = Int(w) * Int(h) * 4
            return (Int(w), Int(h), Array(UnsafeBufferPointer(start: decoded, count: count)))
        }
        guard let pixels else {
            throw .malformed("the image is not a PNG or JPEG that can be decoded, or is larger than \(Self.maxPixels) pixels")
        }
        self.init(width: pixels.width, height: pixels.height, rgba: pixels.rgba)
    }

    /// The pixel rows `rows` (clamped to the image) as an image of their own.
    public func band(_ rows: Range<Int>) -> RasterImage {
        let rows = rows.clamped(to: 0..<height)
        return RasterImage(width: width, height: rows.count, rgba: Array(rgba[rows.lowerBound * width * 4..<rows.upperBound * width * 4]))
    }

    /// The pixels in columns `x` and rows `y` (clamped to the image) as an image of their own.
    public func region(x: Range<Int>, y: Range<Int>) -> RasterImage {
        let (columns, rows) = (x.clamped(to: 0..<width), y.clamped(to: 0..<height))
        guard columns != 0..<width else { return band(rows) }
        var out: [UInt8] = []
        out.reserveCapacity(columns.count * rows.count * 4)
        for row in rows { out += rgba[(row * width + columns.lowerBound) * 4..<(row * width + columns.upperBound) * 4] }
        return RasterImage(width: columns.count, height: rows.count, rgba: out)
    }

    /// Whether the pixel rows `rows` of this image and `other` (of the same size) differ.
    public func differs(from other: RasterImage, in rows: Range<Int>) -> Bool {
        guard width == other.width, height == other.height else { return true }
        let rows = rows.clamped(to: 0..<height)
        let bytes = rows.lowerBound * width * 4..<rows.upperBound * width * 4
        return rgba.withUnsafeBufferPointer { a in
            other.rgba.withUnsafeBufferPointer { b in
                a.baseAddress == b.baseAddress ? false
                    : memcmp(a.baseAddress! + bytes.lowerBound, b.baseAddress! + bytes.lowerBound, bytes.count) != 0
            }
        }
    }

    /// The image moved `x` pixels right and `y` down, what comes into view `filling` (red, green,
    /// blue, alpha); what moves out is gone.
    public func moved(x: Int, y: Int, filling: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> RasterImage {
        var out = [UInt8](repeating: 0, count: rgba.count)
        out.withUnsafeMutableBytes { raw in
            raw.bindMemory(to: UInt32.self).update(repeating: Self.word(filling))
        }
        copyMoved(x: x, y: y, into: &out)
        return RasterImage(width: width, height: height, rgba: out)
    }

    /// The image's pixels moved `x` right and `y` down into `out`, pixels of its size, row by row;
    /// what moves out is left out, and what comes into view is left as `out` has it.
    public func copyMoved(x: Int, y: Int, into out: inout [UInt8]) {
        let (left, right, top, bottom) = (max(0, x), min(width, width + x), max(0, y), min(height, height + y))
        guard left < right, top < bottom, out.count == rgba.count else { return }
        let columns = left..<right, rows = top..<bottom
        rgba.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { target in
                for row in rows {
                    let from = ((row - y) * width + columns.lowerBound - x) * 4, to = (row * width + columns.lowerBound) * 4
                    (target.baseAddress! + to).copyMemory(from: source.baseAddress! + from, byteCount: columns.count * 4)
                }
            }
        }
    }

    /// The image scaled `scale` times (bilinear: a halving averages each two by two pixels) into a
    /// picture of `width × height` pixels, its top left corner landing at `origin` (in the picture's
    /// pixels, may be outside it); what it does not cover `filling`.
    public func scaled(_ scale: Double, to origin: (x: Double, y: Double), width: Int, height: Int,
                       filling: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> RasterImage {
        let (width, height) = (max(width, 0), max(height, 0))
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let columns = Self.samples(width, origin: origin.x, scale: scale, size: self.width)
        let rows = Self.samples(height, origin: origin.y, scale: scale, size: self.height)
        let (fill, sourceWidth) = (Self.word(filling), self.width)
        rgba.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { target in
                columns.withUnsafeBufferPointer { across in
                    nonisolated(unsafe) let (source, pixels, columns) = (raw.bindMemory(to: UInt32.self), target.bindMemory(to: UInt32.self), across)
                    // Rows in two halves at once (the machines this runs on have two cores or more).
                    DispatchQueue.concurrentPerform(iterations: 2) { half in
                        for y in (half == 0 ? 0..<height / 2 : height / 2..<height) {
                            let (row, down) = (y * width, rows[y])
                            guard down.first >= 0 else {
                                for x in 0..<width { pixels[row + x] = fill }
                                continue
                            }
                            let (top, bottom) = (down.first * sourceWidth, down.second * sourceWidth)
                            for x in 0..<width {
                                let sample = columns[x]
                                guard sample.first >= 0 else { pixels[row + x] = fill; continue }
                                // Each byte mixed on its own: the bytes' order in memory does not matter.
                                let upper = Self.mix(source[top + sample.first], source[top + sample.second], sample.weight)
                                let lower = Self.mix(source[bottom + sample.first], source[bottom + sample.second], sample.weight)
                                pixels[row + x] = Self.mix(upper, lower, down.weight)
                            }
                        }
                    }
                }
            }
        }
        return RasterImage(width: width, height: height, rgba: out)
    }

    /// Where a pixel of a scaled picture takes its colour from along one side: between source
    /// pixels `first` and `second`, the second weighing `weight` 256ths; `first` -1 where the
    /// image does not reach.
    private struct Sample: Sendable {
        var first = -1, second = 0
        var weight: UInt32 = 0
    }

    /// The samples of `count` pixels along a side of a picture the image's `size` pixels land on
    /// from `origin`, scaled `scale` times.
    private static func samples(_ count: Int, origin: Double, scale: Double, size: Int) -> [Sample] {
        (0..<count).map { target in
            let source = (Double(target) + 0.5 - origin) / scale - 0.5
            guard scale > 0, size > 0, source.isFinite, source >= -0.5, source <= Double(size) - 0.5 else { return Sample() }
            let index = min(max(source.rounded(.down), 0), Double(size - 1))
            let first = index.clampedInt()
            return Sample(first: first, second: min(first + 1, size - 1),
                          weight: UInt32((min(max(source - index, 0), 1) * 256).rounded().clampedInt(in: 0...256)))
        }
    }

    /// A colour as the four bytes of a pixel in memory.
    private static func word(_ color: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> UInt32 {
        (UInt32(color.r) | UInt32(color.g) << 8 | UInt32(color.b) << 16 | UInt32(color.a) << 24).littleEndian
    }

    /// `a` and `b` (four bytes each) mixed byte by byte, `b` weighing `w` 256ths: two bytes a multiply.
    @inline(__always) private static func mix(_ a: UInt32, _ b: UInt32, _ w: UInt32) -> UInt32 {
        let odd = ((a & 0x00FF_00FF) &* (256 - w) &+ (b & 0x00FF_00FF) &* w) >> 8 & 0x00FF_00FF
        let even = ((a >> 8 & 0x00FF_00FF) &* (256 - w) &+ (b >> 8 & 0x00FF_00FF) &* w) & 0xFF00_FF00
        return odd | even
    }

    /// The mean colour of an opaque image (one pixel in 64 looked at: enough for a wash).
    public func meanColor() -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        var sum = (0, 0, 0), count = 0
        for y in stride(from: 0, to: height, by: 8) {
            for x in stride(from: 0, to: width, by: 8) {
                let p = pixel(x: x, y: y)
                sum = (sum.0 + Int(p.r), sum.1 + Int(p.g), sum.2 + Int(p.b))
                count += 1
            }
        }
        guard count > 0 else { return (0, 0, 0, 255) }
        return (UInt8(sum.0 / count), UInt8(sum.1 / count), UInt8(sum.2 / count), 255)
    }

    /// The pixel at (x, y) as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3])
    }
}
