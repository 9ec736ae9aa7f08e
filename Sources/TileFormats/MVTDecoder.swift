import Foundation

extension MVTTile {
    /// Decodes a tile (already gunzipped). Strict where the spec makes a tile unusable — wrong wire
    /// types, missing layer name or version, tags pointing past keys or values — and tolerant where
    /// real tiles differ: unknown fields are skipped, duplicate layer names kept, features with an
    /// unknown type kept without geometry. Malformed geometry spoils only its feature
    /// (`geometryError`), never the tile.
    public init(decoding data: Data) throws(MVTError) {
        let result: Result<[MVTLayer], MVTError> = data.withUnsafeBytes { raw in
            do throws(MVTError) {
                var reader = ProtobufReader(raw)
                var layers: [MVTLayer] = []
                while !reader.isAtEnd {
                    let (field, wire) = try reader.readKey()
                    if field == 3, wire == .lengthDelimited {
                        var sub = try reader.readMessage()
                        layers.append(try MVTLayer(reading: &sub))
                    } else {
                        try reader.skip(wire)
                    }
                }
                return .success(layers)
            } catch {
                return .failure(error)
            }
        }
        self.init(layers: try result.get())
    }
}

extension MVTLayer {
    fileprivate init(reading reader: inout ProtobufReader) throws(MVTError) {
        var version: Int?
        var name: String?
        var extent = 4096
        var keys: [String] = []
        var values: [MVTValue] = []
        var rawFeatures: [ProtobufReader] = []
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey()
            switch (field, wire) {
            case (15, .varint): version = Int(clamping: try reader.readVarint())
            case (1, .lengthDelimited): name = try reader.readString()
            case (2, .lengthDelimited): rawFeatures.append(try reader.readMessage())
            case (3, .lengthDelimited): keys.append(try reader.readString())
            case (4, .lengthDelimited):
                var sub = try reader.readMessage()
                values.append(try MVTValue(reading: &sub))
            case (5, .varint): extent = Int(clamping: try reader.readVarint())
            case (15, _), (1, _), (2, _), (3, _), (4, _), (5, _):
                throw .malformed("layer field \(field) has the wrong wire type")
            default: try reader.skip(wire)
            }
        }
        guard let name else { throw .malformed("a layer has no name") }
        guard let version else { throw .malformed("layer \"\(name)\" has no version") }
        guard (1...2).contains(version) else { throw .malformed("layer \"\(name)\" has unknown version \(version)") }
        guard extent > 0 else { throw .malformed("layer \"\(name)\" has extent 0") }
        var features: [MVTFeature] = []
        features.reserveCapacity(rawFeatures.count)
        for var raw in rawFeatures {
            features.append(try MVTFeature(reading: &raw, keyCount: keys.count, valueCount: values.count,
                                           strictV2: version >= 2))
        }
        self.init(version: version, name: name, extent: extent, keys: keys, values: values, features: features)
    }
}

extension MVTValue {
    /// A value holds exactly one of the known types; anything else makes the tile invalid.
    fileprivate init(reading reader: inout ProtobufReader) throws(MVTError) {
        var value: MVTValue?
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey()
            switch (field, wire) {
            case (1, .lengthDelimited): value = .string(try reader.readString())
            case (2, .fixed32): value = .float(Float(bitPattern: try reader.readFixed32()))
            case (3, .fixed64): value = .double(Double(bitPattern: try reader.readFixed64()))
            case (4, .varint): value = .int(Int64(bitPattern: try reader.readVarint()))
            case (5, .varint): value = .uint(try reader.readVarint())
            case (6, .varint):
                let raw = try reader.readVarint()
                value = .sint(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
            case (7, .varint): value = .bool(try reader.readVarint() != 0)
            default: throw .malformed("a value has field \(field) with wire type \(wire.rawValue)")
            }
        }
        guard let value else { throw .malformed("a value has no content") }
        self = value
    }
}

extension MVTFeature {
    fileprivate init(reading reader: inout ProtobufReader, keyCount: Int, valueCount: Int, strictV2: Bool) throws(MVTError) {
        var id: UInt64?
        var type = MVTGeometryType.unknown
        var tags: [UInt32] = []
        var commands: [UInt32] = []
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey()
            switch (field, wire) {
            case (1, .varint): id = try reader.readVarint()
            case (2, _): try reader.readRepeatedUInt32(wire, into: &tags)
            case (3, .varint):
                // An unknown type is recoverable: the feature is kept, without geometry.
                type = MVTGeometryType(rawValue: UInt32(truncatingIfNeeded: try reader.readVarint())) ?? .unknown
            case (4, _): try reader.readRepeatedUInt32(wire, into: &commands)
            case (1, _), (3, _): throw .malformed("feature field \(field) has the wrong wire type")
            default: try reader.skip(wire)
            }
        }
        var i = 0
        while i + 1 < tags.count {
            guard Int(tags[i]) < keyCount else { throw .malformed("a feature's tag points past the layer's keys") }
            guard Int(tags[i + 1]) < valueCount else { throw .malformed("a feature's tag points past the layer's values") }
            i += 2
        }
        do {
            let geometry = try MVTGeometry(decoding: commands, type: type, strictV2: strictV2)
            self.init(id: id, type: type, tags: tags, commands: commands, geometry: geometry)
        } catch {
            self.init(id: id, type: type, tags: tags, commands: commands, geometry: .empty, geometryError: error)
        }
    }
}

extension MVTGeometry {
    private static let moveTo: UInt32 = 1, lineTo: UInt32 = 2, closePath: UInt32 = 7

    /// Decodes a command stream (spec 4.3) for a geometry type, validating command order and counts.
    public init(decoding commands: [UInt32], type: MVTGeometryType, strictV2: Bool = true) throws(MVTError) {
        self.init()
        guard type != .unknown, !commands.isEmpty else { return }
        var x: Int32 = 0, y: Int32 = 0
        var i = 0
        let n = commands.count
        // Each vertex costs two integers: never reserve beyond what the stream can hold.
        points.reserveCapacity(n / 2)

        func readPoints(_ count: Int, into points: inout [MVTPoint]) throws(MVTError) {
            guard count <= (n - i) / 2 else { throw .invalidGeometry("a command's count runs past the geometry") }
            for _ in 0..<count {
                let dx = commands[i], dy = commands[i + 1]
                x &+= Int32(bitPattern: (dx >> 1) ^ (0 &- (dx & 1)))
                y &+= Int32(bitPattern: (dy >> 1) ^ (0 &- (dy & 1)))
                points.append(MVTPoint(x: x, y: y))
                i += 2
            }
        }

        switch type {
        case .point:
            // One MoveTo per the spec; further MoveTos (a repeated geometry field) add points.
            while i < n {
                let command = commands[i]; i += 1
                guard command & 7 == Self.moveTo, command >> 3 > 0 else { throw .invalidGeometry("a point must be MoveTo commands only") }
                try readPoints(Int(command >> 3), into: &points)
            }
            partEnds = [points.count]
        case .lineString:
            while i < n {
                let move = commands[i]; i += 1
                guard move & 7 == Self.moveTo, move >> 3 == 1 else { throw .invalidGeometry("a line must start with one MoveTo") }
                try readPoints(1, into: &points)
                guard i < n else { throw .invalidGeometry("a line has no LineTo") }
                let line = commands[i]; i += 1
                guard line & 7 == Self.lineTo, line >> 3 > 0 else { throw .invalidGeometry("a line needs LineTo after MoveTo") }
                try readPoints(Int(line >> 3), into: &points)
                partEnds.append(points.count)
            }
        case .polygon:
            while i < n {
                let start = points.count
                let move = commands[i]; i += 1
                guard move & 7 == Self.moveTo, move >> 3 == 1 else { throw .invalidGeometry("a ring must start with one MoveTo") }
                try readPoints(1, into: &points)
                guard i < n else { throw .invalidGeometry("a ring has no LineTo") }
                let line = commands[i]; i += 1
                guard line & 7 == Self.lineTo, line >> 3 >= 2 || !strictV2 else {
                    throw .invalidGeometry("a ring needs LineTo with at least two points")
                }
                try readPoints(Int(line >> 3), into: &points)
                guard i < n, commands[i] == (1 << 3 | Self.closePath) else {
                    throw .invalidGeometry("a ring must end with one ClosePath")
                }
                i += 1
                partEnds.append(points.count)
                exteriorRings.append(Self.signedArea(points[start..<points.count]) > 0)
            }
        case .unknown:
            break
        }
    }

    /// Twice the ring's signed area (shoelace); positive is clockwise on screen (y down).
    static func signedArea(_ ring: ArraySlice<MVTPoint>) -> Int64 {
        var sum: Int64 = 0
        var previous = ring.last!
        for p in ring {
            sum += Int64(previous.x) * Int64(p.y) - Int64(p.x) * Int64(previous.y)
            previous = p
        }
        return sum
    }
}
