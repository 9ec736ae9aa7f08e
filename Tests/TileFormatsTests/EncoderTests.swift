import Foundation
import SharedTestData
import Testing
@testable import TileFormats

@Suite struct MVTEncoderTests {
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage),
          arguments: MVTFixtureTests.fixtures.filter(\.isValid))
    func validFixtureSurvivesEncoding(_ fixture: MVTFixtureTests.Fixture) throws {
        let tile = try MVTTile(decoding: try fixture.tile())
        #expect(try MVTTile(decoding: tile.encoded()) == tile)
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func realWorldTilesSurviveEncoding() throws {
        for url in RealWorldTileTests.norwayTiles {
            let tile = try MVTTile(decoding: try Data(contentsOf: url))
            #expect(try MVTTile(decoding: tile.encoded()) == tile, "\(url.lastPathComponent)")
        }
    }

    @Test func builderSharesKeysAndValuesAndEncodesGeometry() throws {
        var builder = MVTLayerBuilder(name: "places")
        let point = MVTGeometry(points: [MVTPoint(x: 25, y: 17)], partEnds: [1])
        builder.add(id: 1, type: .point, geometry: point, properties: [("name", .string("Bangor")), ("pop", .int(31_753))])
        builder.add(id: 2, type: .point, geometry: point, properties: [("name", .string("Orono")), ("pop", .int(31_753))])
        #expect(builder.layer.keys == ["name", "pop"])
        #expect(builder.layer.values == [.string("Bangor"), .int(31_753), .string("Orono")])
        // Spec example 4.3.5.1: a point at (25, 17) is [9, 50, 34].
        #expect(builder.layer.features[0].commands == [9, 50, 34])

        let square = MVTGeometry(points: [MVTPoint(x: 3, y: 6), MVTPoint(x: 8, y: 12), MVTPoint(x: 20, y: 34)],
                                 partEnds: [3], exteriorRings: [true])
        // Spec example 4.3.5.5: the polygon (3,6) (8,12) (20,34).
        #expect(square.commands(for: .polygon) == [9, 6, 12, 18, 10, 12, 24, 44, 15])
        let line = MVTGeometry(points: [MVTPoint(x: 2, y: 2), MVTPoint(x: 2, y: 10), MVTPoint(x: 10, y: 10)], partEnds: [3])
        // Spec example 4.3.5.3.
        #expect(line.commands(for: .lineString) == [9, 4, 4, 18, 0, 16, 16, 0])

        let tile = MVTTile(layers: [builder.layer])
        let decoded = try MVTTile(decoding: tile.encoded())
        #expect(decoded == tile)
        #expect(decoded.layers[0].properties(of: decoded.layers[0].features[1])["name"] == .string("Orono"))
    }

    @Test func everyValueTypeRoundTrips() throws {
        var builder = MVTLayerBuilder(name: "values", extent: 512)
        let values: [MVTValue] = [.string("é ✓"), .float(1.5), .double(-2.25), .int(-7), .uint(UInt64.max), .sint(-9_000_000_000), .bool(true)]
        builder.add(type: .point, geometry: MVTGeometry(points: [MVTPoint(x: -5, y: 600)], partEnds: [1]),
                    properties: values.enumerated().map { ("k\($0.offset)", $0.element) })
        let tile = MVTTile(layers: [builder.layer])
        #expect(try MVTTile(decoding: tile.encoded()) == tile)
    }
}

@Suite struct DeflateTests {
    /// A stream deflated in parts at once inflates (zlib checking its Adler-32) to the input, in
    /// one part or several, and is about as small as one deflated whole.
    @Test(arguments: [1, 2, 3, 8])
    func aStreamDeflatedInPartsIsOneStream(pieces: Int) throws {
        // Rows of flat colour with some noise, as a map picture has: 1.2 MB.
        var random = SplitMix64(state: 7)
        var bytes = [UInt8](repeating: 0, count: 1_200 * 1_000)
        for index in bytes.indices {
            let noise = index % 977 < 3
            bytes[index] = noise ? UInt8(truncatingIfNeeded: random.next()) : UInt8(index / 40_000)
        }
        let input = Data(bytes)
        let deflated = input.withUnsafeBytes { Deflate.zlibInParallel($0, pieces: pieces) }
        #expect(try Deflate.inflate(deflated, container: .zlib, limit: 2 << 20) == input)
        let whole = Deflate.deflate(input, container: .zlib, level: 1)
        let allowed = Double(whole.count) * 1.1 + 64
        #expect(Double(deflated.count) < allowed, "\(deflated.count) bytes against \(whole.count)")
        // Damage is caught by the checksum of the whole.
        var damaged = deflated
        damaged[damaged.count - 1] ^= 1
        #expect(throws: TileFormatError.self) { try Deflate.inflate(damaged, container: .zlib, limit: 2 << 20) }
    }

    @Test func gzipRoundTripsAndIsDeterministic() throws {
        let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 3) })
        let gz = Deflate.deflate(data)
        #expect(Deflate.isGzip(gz))
        #expect(gz == Deflate.deflate(data))
        #expect(try Deflate.inflate(gz, limit: 1 << 20) == data)
        let raw = Deflate.deflate(data, container: .raw)
        #expect(try Deflate.inflate(raw, container: .raw, limit: 1 << 20) == data)
        #expect(try Deflate.inflate(Deflate.deflate(Data()), limit: 10) == Data())
    }

    @Test func badStreamsAreTypedErrors() {
        let gz = Deflate.deflate(Data(repeating: 42, count: 10_000))
        #expect(throws: TileFormatError.self) { try Deflate.inflate(gz.prefix(gz.count / 2), limit: 1 << 20) }
        var corrupt = gz
        corrupt[12] ^= 0xFF
        corrupt[13] ^= 0xFF
        #expect(throws: TileFormatError.self) { try Deflate.inflate(corrupt, limit: 1 << 20) }
        #expect(throws: TileFormatError.self) { try Deflate.inflate(Data("not gzip".utf8), limit: 1 << 20) }
    }

    /// 64 MiB of zeros gzip to ~64 KiB; inflating stops at the limit instead of allocating it all.
    @Test func bombStopsAtTheLimit() {
        let bomb = Deflate.deflate(Data(count: 64 << 20), level: 9)
        #expect(bomb.count < 100_000)
        // It stops within one output chunk (256 KiB) of the limit.
        #expect {
            try Deflate.inflate(bomb, limit: 1 << 20)
        } throws: { error in
            guard case .tileTooLarge(let reached)? = error as? TileFormatError else { return false }
            return reached > 1 << 20 && reached <= (1 << 20) + (256 << 10)
        }
    }
}
