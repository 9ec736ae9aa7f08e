import Foundation
import Geometry

/// Reads the bundled world gazetteer: GeoNames' places of 15,000 people or more, with country and
/// (in the United States) state, in the compact form `scripts/derive-gazetteer` writes and
/// describes — about 34,000 places in 0.7 MB, read on first use, never at start.
public enum WorldGazetteer {
    public enum ReadError: Error, Equatable { case notAGazetteer, truncated }

    public static func decode(_ data: Data) throws(ReadError) -> [PlaceName] {
        var reader = Reader(bytes: [UInt8](data))
        guard reader.bytes.starts(with: Array("MBPL".utf8) + [1]) else { throw .notAGazetteer }
        reader.position = 5
        let countryCount = try reader.count()
        var countries: [String] = []
        for _ in 0..<countryCount {
            _ = try reader.text()  // the ISO code
            countries.append(try reader.text())
        }
        var regions: [String] = []
        for _ in 0..<(try reader.count()) { regions.append(try reader.text()) }
        let placeCount = try reader.count()
        var places: [PlaceName] = []
        places.reserveCapacity(placeCount)
        var x = 0, y = 0
        for _ in 0..<placeCount {
            let name = try reader.text()
            x += try reader.signed()
            y += try reader.signed()
            let population = try reader.varint()
            let country = try reader.varint(), region = try reader.varint()
            guard country < countries.count, region < regions.count else { throw .truncated }
            let within = regions[region].isEmpty ? countries[country] : "\(regions[region]), \(countries[country])"
            places.append(PlaceName(name: name, point: GeoPoint(longitude: Double(x) / 10_000, latitude: Double(y) / 10_000),
                                    rank: PlaceName.rank(population: population), region: within, source: .gazetteer))
        }
        return places
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func varint() throws(ReadError) -> Int {
            var value = 0, shift = 0
            while true {
                guard position < bytes.count, shift < 63 else { throw .truncated }
                let byte = bytes[position]
                position += 1
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }

        mutating func signed() throws(ReadError) -> Int {
            let raw = try varint()
            return (raw >> 1) ^ -(raw & 1)
        }

        /// A count no larger than the bytes left could hold: a damaged file cannot ask for more.
        mutating func count() throws(ReadError) -> Int {
            let count = try varint()
            guard count <= bytes.count - position else { throw .truncated }
            return count
        }

        mutating func text() throws(ReadError) -> String {
            let length = try count()
            defer { position += length }
            return String(decoding: bytes[position..<position + length], as: UTF8.self)
        }
    }
}

extension PlaceName {
    /// A place's prominence from its population, on the packages' zoom-like scale (lower ranks
    /// first): 10,000 people rank as a zoom-8 label, 100 as zoom 12.
    public static func rank(population: Int) -> Double { 16 - 2 * log10(Double(max(population, 1))) }
}
