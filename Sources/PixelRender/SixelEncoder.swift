import TileFormats

/// A picture as sixel, written here rather than by libsixel: a map is mostly flat colours, and
/// knowing that makes it three to four times faster, and truer (docs/benchmarks.md). The colours
/// are binned at five bits a channel; at most 256 bins become the palette as they are (a flat fill
/// keeps its exact colour), more are cut into 256 boxes by median cut, the box with the most
/// pixels times its widest channel cut first (the fills stay exact, the anti-aliased edges
/// share). Alpha is not looked at: map pictures are opaque.
enum SixelEncoder {
    static func encode(_ image: RasterImage) -> [UInt8] {
        let (width, height) = (image.width, image.height)
        guard width > 0, height > 0 else { return [] }
        let (palette, indices) = quantized(image)
        var out: [UInt8] = []
        out.reserveCapacity(width * height / 4 + palette.count * 20 + 64)
        // DCS q with 1:1 pixels and the picture's size, then the palette in percent.
        out += Array("\u{1B}Pq\"1;1;".utf8)
        append(width, to: &out); out.append(UInt8(ascii: ";")); append(height, to: &out)
        for (index, color) in palette.enumerated() {
            out.append(UInt8(ascii: "#")); append(index, to: &out); out += Array(";2;".utf8)
            append((Int(color.r) * 100 + 127) / 255, to: &out); out.append(UInt8(ascii: ";"))
            append((Int(color.g) * 100 + 127) / 255, to: &out); out.append(UInt8(ascii: ";"))
            append((Int(color.b) * 100 + 127) / 255, to: &out)
        }
        // Each band of six rows: for each colour in it, its sixels from the band's left edge to the
        // last it sets, runs of four or more as one repeat.
        var bits = [UInt8](repeating: 0, count: 256 * width)
        var span = [(first: Int, last: Int)](repeating: (0, 0), count: 256)
        var inBand = [Bool](repeating: false, count: 256)
        var used: [Int] = []
        used.reserveCapacity(256)
        indices.withUnsafeBufferPointer { indices in
            bits.withUnsafeMutableBufferPointer { bits in
                for top in stride(from: 0, to: height, by: 6) {
                    used.removeAll(keepingCapacity: true)
                    for row in 0..<min(6, height - top) {
                        let bit = UInt8(1 << row), start = (top + row) * width
                        for x in 0..<width {
                            let color = Int(indices[start + x])
                            if !inBand[color] { inBand[color] = true; used.append(color); span[color] = (x, x) }
                            bits[color * width + x] |= bit
                            if x > span[color].last { span[color].last = x } else if x < span[color].first { span[color].first = x }
                        }
                    }
                    for (order, color) in used.enumerated() {
                        if order > 0 { out.append(UInt8(ascii: "$")) }
                        out.append(UInt8(ascii: "#")); append(color, to: &out)
                        let row = color * width, (first, last) = span[color]
                        if first > 0 { run(63, count: first, into: &out) }
                        var x = first
                        let words = UnsafeRawPointer(bits.baseAddress! + row)
                        while x <= last {
                            let sixel = bits[row + x]
                            var end = x + 1
                            // A colour is absent from most of its span (a band holds many): its gaps
                            // are passed over eight sixels at a time.
                            if sixel == 0 { while end + 8 <= last, words.loadUnaligned(fromByteOffset: end, as: UInt64.self) == 0 { end += 8 } }
                            while end <= last, bits[row + end] == sixel { end += 1 }
                            run(63 + sixel, count: end - x, into: &out)
                            x = end
                        }
                        UnsafeMutableBufferPointer(rebasing: bits[row + first...row + last]).update(repeating: 0)
                        inBand[color] = false
                    }
                    if top + 6 < height { out.append(UInt8(ascii: "-")) }
                }
            }
        }
        out += [0x1B, UInt8(ascii: "\\")]
        return out
    }

    /// The palette (at most 256 colours) and each pixel's index in it.
    static func quantized(_ image: RasterImage) -> (palette: [(r: UInt8, g: UInt8, b: UInt8)], indices: [UInt8]) {
        let count = image.width * image.height
        var pixels = [Int32](repeating: 0, count: 32_768)
        var sums = [Int](repeating: 0, count: 32_768 * 3)
        var keys = [UInt16](repeating: 0, count: count)
        image.rgba.withUnsafeBufferPointer { rgba in
            for i in 0..<count {
                let (r, g, b) = (Int(rgba[i * 4]), Int(rgba[i * 4 + 1]), Int(rgba[i * 4 + 2]))
                let key = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3
                keys[i] = UInt16(key)
                pixels[key] += 1
                sums[key * 3] += r; sums[key * 3 + 1] += g; sums[key * 3 + 2] += b
            }
        }
        // Each bin in use, with its pixels' mean colour.
        var bins: [(key: Int, pixels: Int, color: (r: Int, g: Int, b: Int))] = []
        for key in 0..<32_768 where pixels[key] > 0 {
            let n = Int(pixels[key])
            bins.append((key, n, (sums[key * 3] / n, sums[key * 3 + 1] / n, sums[key * 3 + 2] / n)))
        }
        // Up to 256 bins: each its own colour. More: cut into 256 boxes.
        var boxes: [Range<Int>] = bins.count <= 256 ? bins.indices.map { $0..<($0 + 1) } : [0..<bins.count]
        if bins.count > 256 {
            func channel(_ c: (r: Int, g: Int, b: Int), _ which: Int) -> Int { which == 0 ? c.r : which == 1 ? c.g : c.b }
            /// A box's widest channel and its width.
            func widest(_ box: Range<Int>) -> (channel: Int, width: Int) {
                (0..<3).map { which in
                    let values = bins[box].map { channel($0.color, which) }
                    return (which, (values.max() ?? 0) - (values.min() ?? 0))
                }.max { $0.width < $1.width } ?? (0, 0)
            }
            var scores = [widest(boxes[0])]
            var weights = [count]
            while boxes.count < 256 {
                guard let pick = boxes.indices.filter({ boxes[$0].count > 1 && scores[$0].width > 0 })
                    .max(by: { weights[$0] * scores[$0].width < weights[$1] * scores[$1].width }) else { break }
                let box = boxes[pick], which = scores[pick].channel
                bins[box].sort { channel($0.color, which) < channel($1.color, which) }
                // Cut where half the box's pixels lie on each side (never leaving a side empty).
                var seen = 0, cut = box.lowerBound + 1
                for index in box.dropLast() {
                    seen += bins[index].pixels
                    cut = index + 1
                    if seen * 2 >= weights[pick] { break }
                }
                let (low, high) = (box.lowerBound..<cut, cut..<box.upperBound)
                boxes[pick] = low; boxes.append(high)
                scores[pick] = widest(low); scores.append(widest(high))
                let lowWeight = bins[low].reduce(0) { $0 + $1.pixels }
                weights.append(weights[pick] - lowWeight); weights[pick] = lowWeight
            }
        }
        var palette: [(r: UInt8, g: UInt8, b: UInt8)] = []
        var entry = [UInt8](repeating: 0, count: 32_768)
        for (index, box) in boxes.enumerated() {
            var sum = (0, 0, 0), n = 0
            for bin in bins[box] {
                sum = (sum.0 + bin.color.r * bin.pixels, sum.1 + bin.color.g * bin.pixels, sum.2 + bin.color.b * bin.pixels)
                n += bin.pixels
                entry[bin.key] = UInt8(index)
            }
            let total = max(n, 1)
            palette.append((UInt8(sum.0 / total), UInt8(sum.1 / total), UInt8(sum.2 / total)))
        }
        let indices = keys.map { entry[Int($0)] }
        return (palette, indices)
    }

    /// `count` of the sixel `character`: as a repeat (`!count`) from four on.
    private static func run(_ character: UInt8, count: Int, into out: inout [UInt8]) {
        if count >= 4 {
            out.append(UInt8(ascii: "!")); append(count, to: &out); out.append(character)
        } else {
            for _ in 0..<count { out.append(character) }
        }
    }

    private static func append(_ number: Int, to out: inout [UInt8]) {
        if number >= 10 { append(number / 10, to: &out) }
        out.append(UInt8(ascii: "0") + UInt8(number % 10))
    }
}
