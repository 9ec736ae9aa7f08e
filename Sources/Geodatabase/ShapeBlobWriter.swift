import Foundation

extension ShapeBlob {
    /// The blob of a shape on `grid`, laid out as `decode` reads it (see the type's comment), for the
    /// geodatabases mapbook writes: the sample portal's and the benchmarks'. Points come out byte for
    /// byte as Esri writes them; for lines and polygons Esri puts a few bytes of its own between the
    /// header and the stream's marker, which no reader needs and this writes as none. Heights, when
    /// given (one per point), follow the points as `decode` reads them.
    public static func encode(_ shape: StoredShape, grid: CoordinateGrid, srid: Int, z: [Double]? = nil) -> [UInt8] {
        func stored(_ point: (x: Double, y: Double)) -> (Int64, Int64) {
            (Int64(((point.x - grid.originX) * grid.scale).clampedInt()), Int64(((point.y - grid.originY) * grid.scale).clampedInt()))
        }
        let parts: [[(Int64, Int64)]]
        let codes: (UInt8, UInt8)
        switch shape {
        case .empty: return [0x64, UInt8(srid & 0xFF), UInt8(srid >> 8 & 0xFF), UInt8(srid >> 16 & 0xFF), 0, 0, 0, 0]
        case .point(let x, let y):
            parts = [[stored((x, y))]]
            codes = (0x04, 0x01)
        case .multipoint(let points):
            parts = [points.map(stored)]
            codes = (0x04, 0x01)
        case .polyline(let lines):
            parts = lines.map { $0.map(stored) }
            codes = (0x14, lines.count > 1 ? 0x44 : 0x04)
        case .polygon(let rings):
            parts = rings.map { $0.map(stored) }
            codes = (0x18, rings.count > 1 ? 0x48 : 0x08)
        }
        // Between parts a dummy point (-1, 0) in raw units; the deltas run through it.
        var points: [(Int64, Int64)] = []
        var starts: [Int] = []
        for part in parts {
            if !points.isEmpty { points.append((-1, 0)) }
            starts.append(points.count)
            points += part
        }
        var blob: [UInt8] = [0x64, UInt8(srid & 0xFF), UInt8(srid >> 8 & 0xFF), UInt8(srid >> 16 & 0xFF)]
        withUnsafeBytes(of: UInt32(points.count).littleEndian) { blob += $0 }
        blob += [codes.0, codes.1]
        let real = parts.joined()
        if codes.0 != 0x04, points.count > 10, let first = real.first {
            var box = (first.0, first.1, first.0, first.1)
            for (x, y) in real { box = (min(box.0, x), min(box.1, y), max(box.2, x), max(box.3, y)) }
            for value in [box.0, box.1, box.2, box.3] { appendSigned(value, to: &blob) }
        }
        if parts.count > 1 {
            appendSigned(Int64(parts.count - 1), to: &blob)
            for (previous, start) in zip(starts, starts.dropFirst()) { appendSigned(Int64(start - previous), to: &blob) }
        }
        var stream: [UInt8] = []
        var last: (Int64, Int64) = (0, 0)
        for point in points {
            appendSigned(point.0 - last.0, to: &stream)
            appendSigned(point.1 - last.1, to: &stream)
            last = point
        }
        if let z {
            // The dummy points between parts carry no height (−1).
            var heights: [Int64] = [], next = z.makeIterator()
            for (index, part) in parts.enumerated() {
                if index > 0 { heights.append(-1) }
                heights += part.map { _ in Int64((((next.next() ?? grid.originZ) - grid.originZ) * grid.scaleZ).clampedInt()) }
            }
            var previous: Int64 = 0
            for height in heights { appendSigned(height - previous, to: &stream); previous = height }
        }
        appendSigned(Int64(stream.count), to: &blob)
        blob += codes.0 == 0x04 ? [0, 0, 0] : []
        return blob + [1, 0, 0, 0] + stream
    }

    /// Six value bits and the sign (0x40) in the first byte, seven in each after: `VarintReader.signed`.
    static func appendSigned(_ value: Int64, to bytes: inout [UInt8]) {
        var magnitude = value.magnitude
        var first = UInt8(magnitude & 0x3F) | (value < 0 ? 0x40 : 0)
        magnitude >>= 6
        if magnitude > 0 { first |= 0x80 }
        bytes.append(first)
        while magnitude > 0 {
            var byte = UInt8(magnitude & 0x7F)
            magnitude >>= 7
            if magnitude > 0 { byte |= 0x80 }
            bytes.append(byte)
        }
    }
}
