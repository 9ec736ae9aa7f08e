import Foundation
import MapbookCore
import Geometry

/// Reads mapbook's compact feature format (`.mbgf`), which `scripts/derive-assets` writes and which
/// describes itself there: varints, zigzag-encoded coordinate differences in 1e-5 degrees. The
/// bundled geography is read at every start, and this takes well under a millisecond where the same
/// features as GeoJSON took tens.
enum CompactFeatures {
    struct Malformed: Error, Sendable {}

    static func decode(_ data: Data) throws(Malformed) -> [GeoFeature] {
        var reader = Reader(bytes: [UInt8](data))
        guard reader.take(5) == Array("MBGF".utf8) + [1] else { throw Malformed() }
        let count = try reader.count()
        var features: [GeoFeature] = []
        features.reserveCapacity(count)
        for _ in 0..<count {
            var properties: [(key: String, value: JSONValue)] = []
            for _ in 0..<(try reader.count()) {
                properties.append((try reader.text(), try reader.value()))
            }
            features.append(GeoFeature(geometry: try reader.geometry(), properties: properties))
        }
        guard reader.isAtEnd else { throw Malformed() }
        return features
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0
        /// The previous point of the feature being read, in 1e-5 degrees.
        var x = 0, y = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func take(_ n: Int) -> [UInt8]? {
            guard n >= 0, position + n <= bytes.count else { return nil }
            defer { position += n }
            return Array(bytes[position..<position + n])
        }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard position < bytes.count else { throw Malformed() }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func varint() throws(Malformed) -> UInt64 {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                let byte = try byte()
                value |= UInt64(byte & 0x7F) << UInt64(shift)
                if byte & 0x80 == 0 { return value }
            }
            throw Malformed()
        }

        /// A count of things that follow, each at least a byte: never more than the bytes left.
        mutating func count() throws(Malformed) -> Int {
            let n = try varint()
            guard n <= UInt64(bytes.count - position) else { throw Malformed() }
            return Int(n)
        }

        mutating func text() throws(Malformed) -> String {
            guard let utf8 = take(try count()) else { throw Malformed() }
            return String(decoding: utf8, as: UTF8.self)
        }

        mutating func value() throws(Malformed) -> JSONValue {
            switch try byte() {
            case 0: return .null
            case 1: return .string(try text())
            case 2:
                guard let raw = take(8) else { throw Malformed() }
                return .number(Double(bitPattern: raw.reversed().reduce(0) { $0 << 8 | UInt64($1) }))
            case 3: return .bool(false)
            case 4: return .bool(true)
            default: throw Malformed()
            }
        }

        mutating func geometry() throws(Malformed) -> GeoGeometry {
            x = 0; y = 0
            switch try byte() {
            case 1: return .points(try points())
            case 2: return .lines(try (0..<count()).map { _ throws(Malformed) in try points() })
            case 3:
                return .polygons(try (0..<count()).map { _ throws(Malformed) in
                    try (0..<count()).map { _ throws(Malformed) in try points() }
                })
            default: throw Malformed()
            }
        }

        mutating func points() throws(Malformed) -> [GeoPoint] {
            let n = try count()
            var points: [GeoPoint] = []
            points.reserveCapacity(n)
            for _ in 0..<n {
                x += Self.unzigzag(try varint())
                y += Self.unzigzag(try varint())
                points.append(GeoPoint(longitude: Double(x) / 1e5, latitude: Double(y) / 1e5))
            }
            return points
        }

        static func unzigzag(_ n: UInt64) -> Int { Int(truncatingIfNeeded: n >> 1) ^ -Int(truncatingIfNeeded: n & 1) }
    }
}
